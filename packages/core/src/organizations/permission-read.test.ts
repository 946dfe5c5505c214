import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { JointStores } from "../ports/joint-stores.js";
import type { OrganizationStore } from "../ports/organization-store.js";
import { USER_READ_MAX_AGE_MS } from "../sessions/current-user.js";
import { code, createTestAuth, PASSWORD, signIn } from "../test-support.js";

// A permission check on the authenticated path: with `stores.joint.findAllowedAccessTokenWithMembership`
// the allowlist entry, the user and the membership come from one read, and the role is still the
// one stored at that request (never the token's).

/**
 * Memory stores with organizations on, given a `joint` that reads the entry, the user and the
 * membership together (as store-sql's does), counting each read. `membership: false` leaves that
 * method out (the core then makes the separate calls).
 */
async function memberWithJointRead({ membership = true } = {}) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const reads = { withUser: 0, withMembership: 0, membership: 0, fail: false };
  const findMembership: OrganizationStore["findMembership"] = (organizationId, userId) => {
    reads.membership += 1;
    return memory.organizations.findMembership(organizationId, userId);
  };
  // The memory store keeps its state in private fields: its methods run on the store itself.
  const organizations = new Proxy(memory.organizations, {
    get(target, key) {
      if (key === "findMembership") return findMembership;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const joint: JointStores = {
    async findAllowedAccessTokenWithUser(jti) {
      reads.withUser += 1;
      const entry = await memory.allowlist.findAllowedAccessToken(jti);
      return entry && { entry, user: await memory.users.findById(entry.userId) };
    },
    ...(membership
      ? {
          async findAllowedAccessTokenWithMembership(jti: string, organizationId: string) {
            reads.withMembership += 1;
            if (reads.fail) throw new Error("connection lost");
            const entry = await memory.allowlist.findAllowedAccessToken(jti);
            if (!entry) return null;
            return {
              entry,
              user: await memory.users.findById(entry.userId),
              membership: await memory.organizations.findMembership(organizationId, entry.userId),
            };
          },
        }
      : {}),
  };
  const { auth } = createTestAuth({
    clock,
    stores: { ...memory, organizations, joint },
    organizations: { permissions: ["project:read", "project:write"], memberPermissions: ["project:read"] },
  });
  const email = "ada@example.test";
  const { id: userId } = await auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  const login = await signIn(auth, { email, password: PASSWORD });
  const owner = await auth.authenticate({ token: login.accessToken });
  const { organization } = await auth.organizations.create({ principal: owner }, { name: "Acme Inc." });
  const { accessToken } = await auth.organizations.activate({ principal: owner }, organization.id);
  const count = () => ({
    withUser: reads.withUser,
    withMembership: reads.withMembership,
    membership: reads.membership,
  });
  const reset = () => Object.assign(reads, { withUser: 0, withMembership: 0, membership: 0 });
  /** `require` on a principal just authenticated with the active organization's token. */
  const check = async (permission: string) =>
    auth.organizations.require(await auth.authenticate({ token: accessToken }), permission);
  return { auth, clock, memory, reads, userId, organization, accessToken, count, reset, check };
}

describe("organizations.require with stores.joint's membership read", () => {
  it("organizations.require - one joint read: the entry, the user and the membership; no findMembership", async () => {
    const { check, organization, count, reset } = await memberWithJointRead();
    reset();
    expect(await check("project:write")).toEqual({
      organizationId: organization.id,
      role: "owner",
      permissions: expect.arrayContaining(["project:read", "project:write"]),
    });
    expect(count()).toEqual({ withUser: 0, withMembership: 1, membership: 0 });
  });

  it("organizations.require - a role changed or a membership removed counts on the very next request", async () => {
    const { check, memory, userId, organization } = await memberWithJointRead();
    const other = "member-2";
    await memory.organizations.createRole({
      organizationId: organization.id,
      name: "viewer",
      permissions: ["project:read"],
      createdAt: 0,
    });
    // A second owner, so the first can be demoted and removed.
    const store = memory.organizations;
    expect(await check("project:write")).toMatchObject({ role: "owner" });
    await addOwner(store, organization.id, other);
    expect(await store.changeMemberRole(organization.id, userId, "viewer")).toBe("changed");
    expect(await code(check("project:write"))).toBe("PERMISSION_DENIED");
    expect(await check("project:read")).toMatchObject({ role: "viewer", permissions: ["project:read"] });
    expect(await store.removeMember(organization.id, userId)).toBe("removed");
    expect(await code(check("project:read"))).toBe("PERMISSION_DENIED");
  });

  it("organizations.require - fails closed: unknown permission, no principal, a failing joint read", async () => {
    const { auth, check, reads, accessToken } = await memberWithJointRead();
    expect(await code(check("project:unknown"))).toBe("PERMISSION_DENIED");
    expect(await code(auth.organizations.require(undefined, "project:read"))).toBe("AUTHENTICATION_REQUIRED");
    reads.fail = true;
    expect(await code(auth.authenticate({ token: accessToken }))).toBe(
      "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
    );
  });

  it("organizations.require - a principal kept past USER_READ_MAX_AGE_MS reads the membership again", async () => {
    const { auth, clock, memory, userId, organization, accessToken, count, reset } =
      await memberWithJointRead();
    const principal = await auth.authenticate({ token: accessToken });
    await addOwner(memory.organizations, organization.id, "member-2");
    await memory.organizations.changeMemberRole(organization.id, userId, "member");
    clock.advance(USER_READ_MAX_AGE_MS + 1);
    reset();
    expect(await code(auth.organizations.require(principal, "project:write"))).toBe("PERMISSION_DENIED");
    expect(count()).toEqual({ withUser: 0, withMembership: 0, membership: 1 });
  });

  it("organizations.require - without the joint membership read: the joint user read, then findMembership", async () => {
    const { check, count, reset } = await memberWithJointRead({ membership: false });
    reset();
    expect(await check("project:read")).toMatchObject({ role: "owner" });
    expect(count()).toEqual({ withUser: 1, withMembership: 0, membership: 1 });
  });

  it("authenticate - a token naming no organization uses the joint user read", async () => {
    const { auth, count, reset } = await memberWithJointRead();
    const login = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    reset();
    const principal = await auth.authenticate({ token: login.accessToken });
    expect(await code(auth.organizations.require(principal, "project:read"))).toBe("NO_ACTIVE_ORGANIZATION");
    expect(count()).toEqual({ withUser: 1, withMembership: 0, membership: 0 });
  });
});

/** Makes `userId` a second owner of the organization (through an invitation, as the store takes members). */
async function addOwner(store: OrganizationStore, organizationId: string, userId: string) {
  const tokenHash = `hash-${userId}`;
  await store.createInvitation({
    id: `invitation-${userId}`,
    organizationId,
    email: `${userId}@example.test`,
    role: "owner",
    tokenHash,
    invitedBy: "host",
    createdAt: 0,
    expiresAt: Number.MAX_SAFE_INTEGER,
  });
  expect((await store.acceptInvitation(tokenHash, userId, 1)).status).toBe("accepted");
}
