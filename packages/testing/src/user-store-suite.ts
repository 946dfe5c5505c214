import type { UserRecord, UserStore } from "@portcullis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type StoreFixture, type StoreSuiteOptions, uniqueId } from "./store-fixture.js";

const newUser = (overrides: Partial<UserRecord> = {}): UserRecord => {
  const id = uniqueId("user");
  return {
    id,
    email: `${id}@example.test`,
    emailVerified: false,
    name: "Ada",
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g",
    identityProviders: [],
    twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
};

/** The executable contract of `UserStore` (see its TSDoc in @portcullis/core). */
export function runUserStoreSuite(options: StoreSuiteOptions<UserStore>): void {
  describe(`UserStore conformance: ${options.name}`, () => {
    let fixture: StoreFixture<UserStore>;
    let store: UserStore;
    beforeEach(async () => {
      fixture = await options.create();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it("create - stores the user and returns it; findById and findByEmail read it back", async () => {
      const user = newUser({ identityProviders: ["github"], passwordHash: null });
      expect(await store.create(user)).toEqual(user);
      expect(await store.findById(user.id)).toEqual(user);
      expect(await store.findByEmail(user.email)).toEqual(user);
    });

    it("findById / findByEmail - null when there is no such user", async () => {
      expect(await store.findById(uniqueId("missing"))).toBeNull();
      expect(await store.findByEmail(`${uniqueId("missing")}@example.test`)).toBeNull();
    });

    it("create - a second user with the same email is refused with null", async () => {
      const user = newUser();
      await store.create(user);
      expect(await store.create(newUser({ email: user.email }))).toBeNull();
      expect((await store.findByEmail(user.email))?.id).toBe(user.id);
    });

    it("create - concurrent creates with one email: exactly one succeeds", async () => {
      const email = `${uniqueId("race")}@example.test`;
      const results = await Promise.all(Array.from({ length: 20 }, () => store.create(newUser({ email }))));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it("update - applies the patch and returns the new record; id, email and createdAt stay", async () => {
      const user = newUser();
      await store.create(user);
      const twoFactor = {
        methods: ["totp" as const],
        preferredMethod: "totp" as const,
        totpSecretEncrypted: "enc",
        recoveryCodeHashes: ["h"],
      };
      const updated = await store.update(user.id, { emailVerified: true, passwordHash: null, twoFactor });
      expect(updated).toEqual({ ...user, emailVerified: true, passwordHash: null, twoFactor });
      expect(await store.findById(user.id)).toEqual(updated);
      expect(await store.findByEmail(user.email)).toEqual(updated);
    });

    it("update - null for an unknown id, and nothing is created", async () => {
      const id = uniqueId("missing");
      expect(await store.update(id, { name: "x" })).toBeNull();
      expect(await store.findById(id)).toBeNull();
    });

    it("records - returned objects are copies: mutating them does not change the store", async () => {
      const user = newUser();
      const created = await store.create(user);
      created?.identityProviders.push("evil");
      const found = await store.findById(user.id);
      if (found) {
        found.name = "changed";
        found.twoFactor.methods.push("email");
      }
      user.name = "changed too";
      expect(await store.findById(user.id)).toMatchObject({
        name: "Ada",
        identityProviders: [],
        twoFactor: { methods: [] },
      });
    });
  });
}
