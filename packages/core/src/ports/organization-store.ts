/** An organization (a team, a customer company) that users belong to with a role. */
export interface OrganizationRecord {
  /** Opaque, unique, assigned by the core on create. */
  id: string;
  /** 1 to 100 characters, as its owner wrote it. */
  name: string;
  /** `[a-z0-9-]{2,48}`, unique across organizations. */
  slug: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
}

/**
 * A user's place in an organization. `role` is `owner`, `admin`, `member` or the name of one of
 * the organization's custom roles.
 */
export interface MembershipRecord {
  organizationId: string;
  userId: string;
  role: string;
  /** Milliseconds since the Unix epoch. */
  joinedAt: number;
}

/** A membership as a permission check reads it: with the custom role's permissions in the same read. */
export interface MembershipRead {
  membership: MembershipRecord;
  /**
   * The permissions of the member's custom role as stored; null when the role is built in
   * (`owner`, `admin`, `member`: the core knows their permissions) or the custom role is gone.
   */
  rolePermissions: string[] | null;
}

/** A role an organization defined from the permissions the host declared. */
export interface RoleRecord {
  organizationId: string;
  /** `[a-z0-9-]{2,32}`, unique within the organization, never `owner`, `admin` or `member`. */
  name: string;
  /** Each one of the host's declared or built-in permissions; kept as given (order too). */
  permissions: string[];
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
}

/** An invitation to join an organization, sent to an email address. */
export interface InvitationRecord {
  /** Opaque, unique, assigned by the core. */
  id: string;
  organizationId: string;
  /** Normalized (`normalizeEmail`). */
  email: string;
  /** The role the invited person gets on acceptance. */
  role: string;
  /** SHA-256 (base64url) of the token in the emailed link; the token itself is never stored. */
  tokenHash: string;
  /** The inviting member's user id, or the host's actor. */
  invitedBy: string;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /** Milliseconds since the Unix epoch; from then on it cannot be accepted. */
  expiresAt: number;
}

/** A page of a listing, and where the next one starts (null: this is the last). */
export interface OrganizationPage<T> {
  items: T[];
  nextCursor: string | null;
}

/** What `OrganizationStore.acceptInvitation` did. */
export type InvitationAcceptance =
  | { status: "accepted"; membership: MembershipRecord; invitation: InvitationRecord }
  /** No pending invitation with this hash: never created, used, declined, revoked, replaced or expired. */
  | { status: "invalid" }
  /** The user is already a member: the invitation stays pending and no membership changed. */
  | { status: "already-member" };

/**
 * Where organizations, their members, custom roles and invitations live. Optional in `stores`:
 * only a host that configures `organizations` needs one, and it lives where users live (user ids
 * refer to `stores.users`). Every method rejects only when the store itself fails (reported as
 * `DATABASE_FAILURE`); returned records are copies. Times are milliseconds since the Unix epoch.
 *
 * The guarantees that keep an organization safe are atomic steps of the store, never a read and a
 * later write of the core: one organization per slug, one membership per invitation, at least one
 * owner in an organization that has members, no custom role removed while a member holds it.
 */
export interface OrganizationStore {
  /**
   * Stores a new organization and its first member (the owner) together. Atomic on the slug: of
   * concurrent creations with one slug (compared exactly), one returns `created` and the others
   * `slug-taken`, storing nothing. With `maxPerUser`, `limit-reached` (nothing stored) when the
   * owner already belongs to that many organizations, also under concurrency.
   */
  createOrganization(
    organization: OrganizationRecord,
    owner: MembershipRecord,
    options?: { maxPerUser?: number },
  ): Promise<"created" | "slug-taken" | "limit-reached">;
  /** The organization with this id, or null. */
  findOrganization(id: string): Promise<OrganizationRecord | null>;
  /**
   * Optional (added with enterprise sign-in, docs/sso.md; without it `POST /sso/start
   * { organization }` answers `NOT_FOUND`): the organization with this slug (compared exactly), or
   * null. Used by `POST /sso/start { organization }` of @portcullis/sso to find an organization's
   * connections.
   */
  findOrganizationBySlug?(slug: string): Promise<OrganizationRecord | null>;
  /**
   * Changes the name and/or slug; the record after the change, null when there is no such
   * organization, `slug-taken` (nothing changed) when another organization has the new slug.
   */
  updateOrganization(
    id: string,
    patch: { name?: string; slug?: string },
  ): Promise<OrganizationRecord | null | "slug-taken">;
  /** Removes the organization with its memberships, roles and invitations; false when there was none. */
  deleteOrganization(id: string): Promise<boolean>;
  /**
   * Every organization: those whose slug or name starts with `query` (case-insensitive; the empty
   * string: all), ordered by id, at most `limit` (1 to 100) from after `cursor` (an opaque string
   * this method returned as `nextCursor`).
   */
  listOrganizations(query: {
    query: string;
    cursor?: string | undefined;
    limit: number;
  }): Promise<OrganizationPage<OrganizationRecord>>;

  /** The user's membership in the organization, with its custom role's permissions; null when not a member. */
  findMembership(organizationId: string, userId: string): Promise<MembershipRead | null>;
  /** Every organization the user belongs to, with the membership, oldest membership first. */
  listMembershipsOfUser(
    userId: string,
  ): Promise<{ organization: OrganizationRecord; membership: MembershipRecord }[]>;
  /** The organization's members, oldest first, at most `limit` (1 to 100) from after `cursor`. */
  listMembers(
    organizationId: string,
    page: { cursor?: string | undefined; limit: number },
  ): Promise<OrganizationPage<MembershipRecord>>;
  /**
   * Gives the member another role. Atomic against concurrent changes and removals: `last-owner`
   * (nothing changed) when it would leave the organization without an owner, so of concurrent
   * demotions of the last two owners at most one succeeds. `not-found` when not a member.
   * The core checks that a custom `role` exists just before; when `deleteRole` removes it in
   * between, the member holds a role without stored permissions, which the core reads as no
   * permissions at all (never as a built-in role).
   */
  changeMemberRole(
    organizationId: string,
    userId: string,
    role: string,
  ): Promise<"changed" | "not-found" | "last-owner">;
  /**
   * Removes the member (also a member leaving). Atomic like `changeMemberRole`: `last-owner`
   * (nothing removed) when the member is the only owner, also when it is the only member (the
   * organization is deleted instead, or goes with its owner's account through `removeUser`).
   */
  removeMember(organizationId: string, userId: string): Promise<"removed" | "not-found" | "last-owner">;
  /**
   * Optional (added with enterprise sign-in, docs/sso.md; without it a connection's first sign-in
   * of an existing organization's new member answers `NOT_FOUND`): stores the membership as given
   * (`joinedAt` included) in one atomic step, `added`; `exists` (nothing changed, the role stays)
   * when the user is a member already; `not-found` (nothing stored) when there is no such
   * organization. Of concurrent additions of one user to one organization exactly one is `added`.
   * The core checks that a custom `role` exists just before, as for `changeMemberRole`.
   */
  addMember?(membership: MembershipRecord): Promise<"added" | "exists" | "not-found">;
  /**
   * For the user's account deletion, in one atomic step: removes every membership of the user and
   * deletes each organization the user was the only member of (with its roles and invitations).
   * When the user is the only owner of an organization that has other members, it removes nothing
   * and returns those organizations' ids in `blockedBy`.
   */
  removeUser(userId: string): Promise<{ blockedBy: string[]; deletedOrganizations: string[] }>;

  /** The organization's custom roles, oldest first. */
  listRoles(organizationId: string): Promise<RoleRecord[]>;
  /** Stores a custom role; `exists` (nothing stored) when the organization has one of that name. */
  createRole(role: RoleRecord): Promise<"created" | "exists">;
  /** Replaces a custom role's permissions; the updated record, or null when there is none. */
  updateRole(organizationId: string, name: string, permissions: string[]): Promise<RoleRecord | null>;
  /**
   * Removes a custom role. Atomic against concurrent role changes and invitations: `in-use`
   * (nothing removed) while a member holds it or a pending invitation grants it. An invitation
   * past its `expiresAt` on the store's clock is not pending: it goes with the role.
   */
  deleteRole(organizationId: string, name: string): Promise<"deleted" | "not-found" | "in-use">;

  /**
   * Stores a new invitation and, in the same atomic step, removes the pending invitations of the
   * same organization and email (a newer invitation replaces the older).
   */
  createInvitation(invitation: InvitationRecord): Promise<void>;
  /** The invitation whose token has this hash, pending or not yet removed, or null. */
  findInvitationByTokenHash(tokenHash: string): Promise<InvitationRecord | null>;
  /** The organization's invitations that have not expired at `now`, newest first. */
  listInvitations(organizationId: string, now: number): Promise<InvitationRecord[]>;
  /** The invitations to this (normalized) address that have not expired at `now`, newest first. */
  listInvitationsForEmail(email: string, now: number): Promise<InvitationRecord[]>;
  /** Removes the organization's invitation; false when there was none. */
  revokeInvitation(organizationId: string, invitationId: string): Promise<boolean>;
  /** Removes the invitation with this token hash (declined); false when there was none. */
  declineInvitation(tokenHash: string): Promise<boolean>;
  /**
   * Accepts the invitation with this token hash for `userId` in one atomic step: when it exists
   * and has not expired at `now`, and the user is not yet a member, it removes the invitation and
   * stores the membership (role from the invitation, `joinedAt: now`). Of concurrent acceptances
   * of one invitation, at most one returns `accepted`.
   */
  acceptInvitation(tokenHash: string, userId: string, now: number): Promise<InvitationAcceptance>;
}
