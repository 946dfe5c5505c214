// The store of one OrganizationStore conformance test and the helpers its tests share
// (organization-store-suite.ts, organization-store-invitations.ts, organization-store-members.ts).
import type {
  InvitationRecord,
  MembershipRecord,
  OrganizationPage,
  OrganizationRecord,
  OrganizationStore,
  RoleRecord,
} from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, uniqueId } from "./store-fixture.js";

/** The time the records of a test start from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** How long an invitation of these tests lasts (7 days), in milliseconds. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/**
 * An expiry no store's clock reaches (2100), for invitations that must still be pending by the
 * store's own clock, not only at the times the tests pass in.
 */
export const FAR_FUTURE = Date.UTC(2100, 0, 1);

/** A short random tag of lowercase letters and digits, to keep one test's names apart from another's. */
export const uniqueTag = () =>
  `t${uniqueId("")
    .replace(/[^a-z0-9]/g, "")
    .slice(0, 12)}`;

/**
 * `count` pairs of calls `a(n)` and `b(n)`, all started in one tick; in every other pair `b`
 * starts first, so a store that is not atomic loses in either order. Each pair's results as
 * `[a's, b's]`.
 */
export const raced = <A, B>(count: number, a: (n: number) => Promise<A>, b: (n: number) => Promise<B>) =>
  Promise.all(
    Array.from({ length: count }, (_, n) => {
      if (n % 2 === 0) return Promise.all([a(n), b(n)]);
      const first = b(n);
      return Promise.all([a(n), first]);
    }),
  );

/** Record makers of one test: each record gets a time later than the ones before (1 s apart). */
function recordMakers() {
  let ticks = 0;
  /** A time later than every time this helper gave before (1 s apart). */
  const later = () => T0 + ++ticks * 1_000;
  const newOrganization = (overrides: Partial<OrganizationRecord> = {}): OrganizationRecord => ({
    id: uniqueId("org"),
    name: "Acme",
    slug: uniqueId("o"),
    createdAt: later(),
    ...overrides,
  });
  /** The owner's membership of a new organization, joined when it was created. */
  const ownerOf = (organization: OrganizationRecord, userId = uniqueId("user")): MembershipRecord => ({
    organizationId: organization.id,
    userId,
    role: "owner",
    joinedAt: organization.createdAt,
  });
  const newInvitation = (organizationId: string, overrides: Partial<InvitationRecord> = {}) => {
    const createdAt = overrides.createdAt ?? later();
    const invitation: InvitationRecord = {
      id: uniqueId("invitation"),
      organizationId,
      email: `${uniqueId("guest")}@example.test`,
      role: "member",
      tokenHash: uniqueId("hash"),
      invitedBy: uniqueId("user"),
      createdAt,
      expiresAt: createdAt + INVITATION_TTL_MS,
      ...overrides,
    };
    return invitation;
  };
  const newRole = (organizationId: string, overrides: Partial<RoleRecord> = {}): RoleRecord => ({
    organizationId,
    name: "editor",
    permissions: ["project:write", "project:read"],
    createdAt: later(),
    ...overrides,
  });
  return { later, newOrganization, ownerOf, newInvitation, newRole };
}

/** Every page of a listing; `between` runs after each page but the last, given that page. */
async function allPages<T>(
  list: (cursor: string | undefined) => Promise<OrganizationPage<T>>,
  between?: (page: T[]) => Promise<void>,
) {
  const pages: T[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await list(cursor);
    pages.push(page.items);
    if (page.nextCursor === null) return pages;
    if (pages.length > 100) throw new Error("more than 100 pages: the cursor does not advance");
    cursor = page.nextCursor;
    await between?.(page.items);
  }
}

/** The store of one test, and helpers that make and store records for it. */
export function organizationContext(fixture: StoreFixture<OrganizationStore>) {
  const store = fixture.store;
  const makers = recordMakers();
  const { later, newOrganization, ownerOf, newInvitation, newRole } = makers;
  /** A new organization, created in the store: the organization and its owner's membership. */
  const storedOrganization = async (overrides: Partial<OrganizationRecord> = {}, ownerId?: string) => {
    const organization = newOrganization(overrides);
    const owner = ownerOf(organization, ownerId);
    expect(await store.createOrganization(organization, owner)).toBe("created");
    return { organization, owner };
  };
  /** A new invitation, created in the store. */
  const storedInvitation = async (organizationId: string, overrides: Partial<InvitationRecord> = {}) => {
    const invitation = newInvitation(organizationId, overrides);
    await store.createInvitation(invitation);
    return invitation;
  };
  /** Adds a member (the only way in besides creating: an accepted invitation); their membership. */
  const addMember = async (organizationId: string, role = "member", userId = uniqueId("user")) => {
    const invitation = await storedInvitation(organizationId, { role });
    const joinedAt = later();
    const result = await store.acceptInvitation(invitation.tokenHash, userId, joinedAt);
    expect(result.status).toBe("accepted");
    const membership: MembershipRecord = { organizationId, userId, role, joinedAt };
    return membership;
  };
  /** A new custom role, created in the store. */
  const storedRole = async (organizationId: string, overrides: Partial<RoleRecord> = {}) => {
    const role = newRole(organizationId, overrides);
    expect(await store.createRole(role)).toBe("created");
    return role;
  };
  /** Two new organizations, created in the store in turn: `organization`, then `other`. */
  const twoOrganizations = async () => {
    const { organization } = await storedOrganization();
    const { organization: other } = await storedOrganization();
    return { organization, other };
  };
  /** A new organization (with its owner's membership) and an invitation to it with `overrides`, stored. */
  const invitedOrganization = async (overrides: Partial<InvitationRecord> = {}) => {
    const { organization, owner } = await storedOrganization();
    const invitation = await storedInvitation(organization.id, overrides);
    return { organization, owner, invitation };
  };
  /** A new organization (with its owner), a custom role of it with `overrides`, and a member holding it. */
  const roleHolder = async (overrides: Partial<RoleRecord> = {}) => {
    const { organization, owner } = await storedOrganization();
    const role = await storedRole(organization.id, overrides);
    const member = await addMember(organization.id, role.name);
    return { organization, owner, role, member };
  };
  /** The members of an organization who are owners (at most 100 members are read). */
  const ownersOf = async (organizationId: string) =>
    (await store.listMembers(organizationId, { limit: 100 })).items.filter(
      (member) => member.role === "owner",
    );
  return {
    store,
    fixture,
    ...makers,
    storedOrganization,
    storedInvitation,
    addMember,
    storedRole,
    twoOrganizations,
    invitedOrganization,
    roleHolder,
    allPages,
    ownersOf,
  };
}

/** What each test of the suite gets: the store and its record makers. */
export type OrganizationContext = ReturnType<typeof organizationContext>;
