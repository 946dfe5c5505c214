import {
  type Clock,
  type InvitationAcceptance,
  type InvitationRecord,
  type MembershipRecord,
  type OrganizationPage,
  type OrganizationRecord,
  type OrganizationStore,
  type RoleRecord,
  systemClock,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";
import { OwnerIndex } from "./owner-index.js";

/** One organization with everything that belongs to it. */
interface StoredOrganization {
  record: OrganizationRecord;
  /** By user id. */
  members: Map<string, MembershipRecord>;
  /** By name, in creation order. */
  roles: Map<string, RoleRecord>;
}

const byJoinedAt = (a: MembershipRecord, b: MembershipRecord) =>
  a.joinedAt - b.joinedAt || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0);

const isLastOwner = (stored: StoredOrganization, member: MembershipRecord) =>
  member.role === "owner" &&
  [...stored.members.values()].filter((other) => other.role === "owner").length === 1;

const newestFirst = (a: InvitationRecord, b: InvitationRecord) =>
  b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1);

/** A member's place in the order of `listMembers`, as its cursor: `<joinedAt>:<userId>`. */
const memberCursor = (member: MembershipRecord) => `${member.joinedAt}:${member.userId}`;

const isAfterMemberCursor = (member: MembershipRecord, cursor: string) => {
  const colon = cursor.indexOf(":");
  const joinedAt = Number(cursor.slice(0, colon));
  const userId = cursor.slice(colon + 1);
  return member.joinedAt > joinedAt || (member.joinedAt === joinedAt && member.userId > userId);
};

/** At most `limit` of the sorted `items`, and the cursor of the last one when more follow. */
function pageOf<T>(items: T[], limit: number, cursorOf: (item: T) => string): OrganizationPage<T> {
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(clonePlain),
    nextCursor: items.length > limit && last !== undefined ? cursorOf(last) : null,
  };
}

/**
 * Organizations, memberships, custom roles and invitations in memory. Each method reads and
 * writes with no await in between, so every check (a slug, the last owner, a role in use, a
 * pending invitation) and the write it guards are one atomic step within the process. `clock`
 * tells which invitations have expired when `deleteRole` looks for one granting the role.
 */
export function createMemoryOrganizationStore(options: { clock?: Clock } = {}): OrganizationStore {
  return new MemoryOrganizationStore(options.clock ?? systemClock);
}

class MemoryOrganizationStore implements OrganizationStore {
  readonly #clock: Clock;
  readonly #organizations = new Map<string, StoredOrganization>();
  readonly #idBySlug = new Map<string, string>();
  readonly #organizationsOfUser = new OwnerIndex();
  /** By token hash. */
  readonly #invitations = new Map<string, InvitationRecord>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #invitationsOf(organizationId: string) {
    return [...this.#invitations.values()].filter(
      (invitation) => invitation.organizationId === organizationId,
    );
  }

  /** The user's memberships with their organizations, oldest membership first. */
  #membershipsOf(userId: string) {
    return this.#organizationsOfUser
      .keys(userId)
      .flatMap((id) => {
        const stored = this.#organizations.get(id);
        const membership = stored?.members.get(userId);
        return stored && membership ? [{ stored, membership }] : [];
      })
      .sort((a, b) => byJoinedAt(a.membership, b.membership));
  }

  #addMember(stored: StoredOrganization, membership: MembershipRecord) {
    stored.members.set(membership.userId, clonePlain(membership));
    this.#organizationsOfUser.add(membership.userId, membership.organizationId);
  }

  #dropMember(stored: StoredOrganization, userId: string) {
    stored.members.delete(userId);
    this.#organizationsOfUser.remove(userId, stored.record.id);
  }

  #dropOrganization(stored: StoredOrganization) {
    this.#organizations.delete(stored.record.id);
    this.#idBySlug.delete(stored.record.slug);
    for (const userId of [...stored.members.keys()]) this.#dropMember(stored, userId);
    for (const invitation of this.#invitationsOf(stored.record.id))
      this.#invitations.delete(invitation.tokenHash);
  }

  async createOrganization(
    organization: OrganizationRecord,
    owner: MembershipRecord,
    options?: { maxPerUser?: number },
  ) {
    if (this.#idBySlug.has(organization.slug)) return "slug-taken" as const;
    const maxPerUser = options?.maxPerUser;
    if (maxPerUser !== undefined && this.#membershipsOf(owner.userId).length >= maxPerUser)
      return "limit-reached" as const;
    const stored: StoredOrganization = {
      record: clonePlain(organization),
      members: new Map(),
      roles: new Map(),
    };
    this.#organizations.set(organization.id, stored);
    this.#idBySlug.set(organization.slug, organization.id);
    this.#addMember(stored, owner);
    return "created" as const;
  }

  async findOrganization(id: string) {
    const stored = this.#organizations.get(id);
    return stored ? clonePlain(stored.record) : null;
  }

  async findOrganizationBySlug(slug: string) {
    const id = this.#idBySlug.get(slug);
    return id === undefined ? null : this.findOrganization(id);
  }

  async updateOrganization(id: string, patch: { name?: string; slug?: string }) {
    const stored = this.#organizations.get(id);
    if (!stored) return null;
    const { slug = stored.record.slug, name = stored.record.name } = patch;
    if (slug !== stored.record.slug && this.#idBySlug.has(slug)) return "slug-taken" as const;
    this.#idBySlug.delete(stored.record.slug);
    this.#idBySlug.set(slug, id);
    stored.record = { ...stored.record, name, slug };
    return clonePlain(stored.record);
  }

  async deleteOrganization(id: string) {
    const stored = this.#organizations.get(id);
    if (!stored) return false;
    this.#dropOrganization(stored);
    return true;
  }

  async listOrganizations({
    query,
    cursor,
    limit,
  }: {
    query: string;
    cursor?: string | undefined;
    limit: number;
  }) {
    const prefix = query.toLowerCase();
    const matching = [...this.#organizations.values()]
      .map((stored) => stored.record)
      .filter(
        (record) =>
          (cursor === undefined || record.id > cursor) &&
          (record.slug.toLowerCase().startsWith(prefix) || record.name.toLowerCase().startsWith(prefix)),
      )
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return pageOf(matching, limit, (record) => record.id);
  }

  async findMembership(organizationId: string, userId: string) {
    const stored = this.#organizations.get(organizationId);
    const membership = stored?.members.get(userId);
    if (!stored || !membership) return null;
    const role = stored.roles.get(membership.role);
    return { membership: clonePlain(membership), rolePermissions: role ? [...role.permissions] : null };
  }

  async listMembershipsOfUser(userId: string) {
    return this.#membershipsOf(userId).map(({ stored, membership }) => ({
      organization: clonePlain(stored.record),
      membership: clonePlain(membership),
    }));
  }

  async listMembers(
    organizationId: string,
    { cursor, limit }: { cursor?: string | undefined; limit: number },
  ) {
    const members = [...(this.#organizations.get(organizationId)?.members.values() ?? [])]
      .filter((member) => cursor === undefined || isAfterMemberCursor(member, cursor))
      .sort(byJoinedAt);
    return pageOf(members, limit, memberCursor);
  }

  async changeMemberRole(organizationId: string, userId: string, role: string) {
    const stored = this.#organizations.get(organizationId);
    const member = stored?.members.get(userId);
    if (!stored || !member) return "not-found" as const;
    if (role !== "owner" && isLastOwner(stored, member)) return "last-owner" as const;
    stored.members.set(userId, { ...member, role });
    return "changed" as const;
  }

  async removeMember(organizationId: string, userId: string) {
    const stored = this.#organizations.get(organizationId);
    const member = stored?.members.get(userId);
    if (!stored || !member) return "not-found" as const;
    if (isLastOwner(stored, member)) return "last-owner" as const;
    this.#dropMember(stored, userId);
    return "removed" as const;
  }

  async addMember(membership: MembershipRecord) {
    const stored = this.#organizations.get(membership.organizationId);
    if (!stored) return "not-found" as const;
    if (stored.members.has(membership.userId)) return "exists" as const;
    this.#addMember(stored, membership);
    return "added" as const;
  }

  async removeUser(userId: string) {
    const memberships = this.#membershipsOf(userId);
    const blockedBy = memberships
      .filter(({ stored, membership }) => stored.members.size > 1 && isLastOwner(stored, membership))
      .map(({ stored }) => stored.record.id);
    if (blockedBy.length > 0) return { blockedBy, deletedOrganizations: [] };
    const deletedOrganizations: string[] = [];
    for (const { stored } of memberships) {
      if (stored.members.size > 1) {
        this.#dropMember(stored, userId);
        continue;
      }
      this.#dropOrganization(stored);
      deletedOrganizations.push(stored.record.id);
    }
    return { blockedBy: [], deletedOrganizations };
  }

  async listRoles(organizationId: string) {
    return [...(this.#organizations.get(organizationId)?.roles.values() ?? [])].map(clonePlain);
  }

  async createRole(role: RoleRecord) {
    const stored = this.#organizations.get(role.organizationId);
    if (stored?.roles.has(role.name)) return "exists" as const;
    // Without its organization (deleted meanwhile) the role would go with it: nothing to keep.
    stored?.roles.set(role.name, clonePlain(role));
    return "created" as const;
  }

  async updateRole(organizationId: string, name: string, permissions: string[]) {
    const role = this.#organizations.get(organizationId)?.roles.get(name);
    if (!role) return null;
    role.permissions = [...permissions];
    return clonePlain(role);
  }

  async deleteRole(organizationId: string, name: string) {
    const stored = this.#organizations.get(organizationId);
    if (!stored?.roles.has(name)) return "not-found" as const;
    const now = this.#clock.now();
    const granting = this.#invitationsOf(organizationId).filter((invitation) => invitation.role === name);
    const held = [...stored.members.values()].some((member) => member.role === name);
    if (held || granting.some((invitation) => invitation.expiresAt > now)) return "in-use" as const;
    for (const invitation of granting) this.#invitations.delete(invitation.tokenHash);
    stored.roles.delete(name);
    return "deleted" as const;
  }

  async createInvitation(invitation: InvitationRecord) {
    // Without its organization (deleted meanwhile) the invitation would go with it: nothing to keep.
    if (!this.#organizations.has(invitation.organizationId)) return;
    for (const pending of this.#invitationsOf(invitation.organizationId)) {
      if (pending.email === invitation.email) this.#invitations.delete(pending.tokenHash);
    }
    this.#invitations.set(invitation.tokenHash, clonePlain(invitation));
  }

  async findInvitationByTokenHash(tokenHash: string) {
    const invitation = this.#invitations.get(tokenHash);
    return invitation ? clonePlain(invitation) : null;
  }

  async listInvitations(organizationId: string, now: number) {
    return this.#invitationsOf(organizationId)
      .filter((invitation) => invitation.expiresAt > now)
      .sort(newestFirst)
      .map(clonePlain);
  }

  async listInvitationsForEmail(email: string, now: number) {
    return [...this.#invitations.values()]
      .filter((invitation) => invitation.email === email && invitation.expiresAt > now)
      .sort(newestFirst)
      .map(clonePlain);
  }

  async revokeInvitation(organizationId: string, invitationId: string) {
    const invitation = this.#invitationsOf(organizationId).find((pending) => pending.id === invitationId);
    return invitation ? this.#invitations.delete(invitation.tokenHash) : false;
  }

  async declineInvitation(tokenHash: string) {
    return this.#invitations.delete(tokenHash);
  }

  async acceptInvitation(tokenHash: string, userId: string, now: number): Promise<InvitationAcceptance> {
    const invitation = this.#invitations.get(tokenHash);
    const stored = invitation && this.#organizations.get(invitation.organizationId);
    if (!invitation || !stored || invitation.expiresAt <= now) return { status: "invalid" };
    if (stored.members.has(userId)) return { status: "already-member" };
    this.#invitations.delete(tokenHash);
    const membership = {
      organizationId: invitation.organizationId,
      userId,
      role: invitation.role,
      joinedAt: now,
    };
    this.#addMember(stored, membership);
    return { status: "accepted", membership: clonePlain(membership), invitation: clonePlain(invitation) };
  }
}
