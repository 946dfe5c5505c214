import { createFakeClock, runScimStoreSuite } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryScimStore } from "./scim-store.js";

runScimStoreSuite({
  name: "memory",
  create: () => {
    const clock = createFakeClock();
    return {
      store: createMemoryScimStore({ clock }),
      advance: (ms) => clock.advance(ms),
      now: () => clock.now(),
    };
  },
});

const T0 = 1_700_000_000_000;

const user = (id: string, userName: string) => ({
  connectionId: "connection-1",
  id,
  userId: `account-${id}`,
  userName,
  externalId: null,
  active: true,
  suspendedRole: null,
  attributes: {},
  version: 1,
  createdAt: T0,
  updatedAt: T0,
});

const group = (id: string, displayName: string, memberIds: string[]) => ({
  connectionId: "connection-1",
  id,
  displayName,
  externalId: null,
  role: null,
  memberIds,
  version: 1,
  createdAt: T0,
  updatedAt: T0,
});

/** The memory store's own choices where the port leaves them open. */
describe("createMemoryScimStore", () => {
  it("deleteScimUser - the groups it takes the user out of get updatedAt from the store's clock", async () => {
    const clock = createFakeClock({ start: T0 + 60_000 });
    const store = createMemoryScimStore({ clock });
    await store.createScimUser(user("u1", "ada@example.com"));
    await store.createScimGroup(group("g1", "Admins", ["u1", "u2"]));
    clock.advance(5_000);
    expect(await store.deleteScimUser("connection-1", "u1")).toBe(true);
    expect(await store.findScimGroup("connection-1", "g1")).toEqual({
      ...group("g1", "Admins", ["u2"]),
      version: 2,
      updatedAt: T0 + 65_000,
    });
  });

  it("createScimUser, createScimGroup - reject an id already stored, of any connection", async () => {
    const store = createMemoryScimStore();
    await store.createScimUser(user("u1", "ada@example.com"));
    await store.createScimGroup(group("g1", "Admins", []));
    const again = { ...user("u1", "grace@example.com"), connectionId: "connection-2" };
    await expect(store.createScimUser(again)).rejects.toThrow("the id u1 is taken");
    await expect(store.createScimGroup(group("g1", "Others", []))).rejects.toThrow("the id g1 is taken");
    // A user's id is no group's, and an id deleted is free again.
    expect(await store.createScimGroup(group("u1", "Users", []))).toBe("created");
    expect(await store.deleteScimUser("connection-1", "u1")).toBe(true);
    expect(await store.createScimUser(again)).toBe("created");
    await store.removeConnectionScim("connection-1");
    expect(await store.createScimGroup(group("g1", "Admins", []))).toBe("created");
  });
});
