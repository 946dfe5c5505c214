import type {
  AccessTokenAllowlist,
  AllowlistEntry,
  JointStores,
  OrganizationStore,
  UserStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { organizationContext } from "./organization-store-context.js";
import { elapse, type StoreFixture, sampleUser, uniqueId } from "./store-fixture.js";

/** An access token's lifetime in these tests (15 minutes), in milliseconds. */
const TTL_MS = 900_000;

/** What the membership-read tests need of the allowlist suite's context. */
interface MembershipReadContext {
  store: AccessTokenAllowlist;
  fixture: StoreFixture<AccessTokenAllowlist> & {
    joint?: JointStores;
    users?: UserStore;
    organizations?: OrganizationStore;
  };
}

/**
 * The fixture's joint read of an entry with its user's membership, and the stores it reads, when
 * it has one (null: nothing to check). `member` makes a user in `users`, an organization they own
 * in `organizations` and a `jti` allowed for one session of theirs.
 */
function membershipRead({ store, fixture }: MembershipReadContext) {
  const composite = fixture.joint;
  const read = composite?.findAllowedAccessTokenWithMembership;
  if (read === undefined) return null;
  const { users, organizations } = fixture;
  if (users === undefined || organizations === undefined)
    throw new Error(
      "a fixture whose joint has findAllowedAccessTokenWithMembership needs `users` and `organizations`",
    );
  const orgs = organizationContext({ ...fixture, store: organizations });
  const member = async (ttlMs = TTL_MS) => {
    const userId = uniqueId("user");
    const made = await users.create(sampleUser({ id: userId }));
    expect(made).not.toBeNull();
    const { organization } = await orgs.storedOrganization({}, userId);
    const sessionId = uniqueId("session");
    const jti = store.createAccessTokenId?.(sessionId) ?? uniqueId("jti");
    const entry: AllowlistEntry = { userId, sessionId };
    await store.allowAccessToken(jti, entry, ttlMs);
    return { userId, organizationId: organization.id, jti, entry };
  };
  return {
    read: (jti: string, organizationId: string) => read.call(composite, jti, organizationId),
    users,
    organizations,
    orgs,
    member,
  };
}

/** The allowlist suite's group for `joint.findAllowedAccessTokenWithMembership`. */
export const ALLOWLIST_MEMBERSHIP_TESTS: Record<string, (context: MembershipReadContext) => Promise<void>> = {
  "joint.findAllowedAccessTokenWithMembership - the entry, the user and the membership, as the three reads answer":
    async (context) => {
      const with_ = membershipRead(context);
      if (with_ === null) return;
      const { userId, organizationId, jti, entry } = await with_.member();
      const membership = await with_.organizations.findMembership(organizationId, userId);
      expect(membership).toMatchObject({ membership: { role: "owner" }, rolePermissions: null });
      expect(await with_.read(jti, organizationId)).toEqual({
        entry,
        user: await with_.users.findById(userId),
        membership,
      });
    },
  "joint.findAllowedAccessTokenWithMembership - a custom role's permissions; a changed role and a removal show on the very next read":
    async (context) => {
      const with_ = membershipRead(context);
      if (with_ === null) return;
      const { userId, organizationId, jti, entry } = await with_.member();
      const role = await with_.orgs.storedRole(organizationId, {
        name: "viewer",
        permissions: ["project:read"],
      });
      await with_.orgs.addMember(organizationId, "owner");
      expect(await with_.organizations.changeMemberRole(organizationId, userId, role.name)).toBe("changed");
      expect((await with_.read(jti, organizationId))?.membership).toEqual({
        membership: expect.objectContaining({ organizationId, userId, role: "viewer" }),
        rolePermissions: ["project:read"],
      });
      expect(await with_.organizations.removeMember(organizationId, userId)).toBe("removed");
      expect(await with_.read(jti, organizationId)).toMatchObject({ entry, membership: null });
    },
  "joint.findAllowedAccessTokenWithMembership - membership null in another or an unknown organization; the user deleted is null":
    async (context) => {
      const with_ = membershipRead(context);
      if (with_ === null) return;
      const { userId, organizationId, jti, entry } = await with_.member();
      const other = await with_.orgs.storedOrganization();
      expect(await with_.read(jti, other.organization.id)).toMatchObject({ entry, membership: null });
      expect(await with_.read(jti, uniqueId("org"))).toMatchObject({ entry, membership: null });
      await with_.users.delete(userId);
      expect((await with_.read(jti, organizationId))?.user).toBeNull();
    },
  "joint.findAllowedAccessTokenWithMembership - null for a jti never allowed, revoked or expired": async (
    context,
  ) => {
    const with_ = membershipRead(context);
    if (with_ === null) return;
    const { organizationId } = await with_.member();
    expect(await with_.read(uniqueId("missing"), organizationId)).toBeNull();
    const revoked = await with_.member();
    expect((await with_.read(revoked.jti, revoked.organizationId))?.entry).toEqual(revoked.entry);
    await context.store.revokeAccessTokens([revoked.jti]);
    expect(await with_.read(revoked.jti, revoked.organizationId)).toBeNull();
    const expiring = await with_.member(200);
    await elapse(context.fixture, 260);
    expect(await with_.read(expiring.jti, expiring.organizationId)).toBeNull();
  },
};
