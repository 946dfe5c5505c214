import { AuthError, guardPort, isInfrastructureFailure } from "../errors.js";
import {
  isIssuedPrincipal,
  type Principal,
  type PrincipalApiKey,
  principalMembershipRead,
} from "../model.js";
import type { ResolvedOrganizationsOptions } from "../options/organization-options.js";
import type { Clock } from "../ports/clock.js";
import type { MembershipRead, MembershipRecord, OrganizationStore } from "../ports/organization-store.js";
import { USER_READ_MAX_AGE_MS } from "../sessions/current-user.js";
import { type Actor, isKnownPermission, type PermissionOptions, permissionsOfRole } from "./roles.js";

/**
 * What the organization mechanisms read: the store and the `organizations` option, and the clock
 * that dates a membership `authenticate` read (without it, every check reads the store).
 */
export interface OrganizationDeps {
  organizations: OrganizationStore | undefined;
  options: { organizations?: ResolvedOrganizationsOptions };
  clock?: Clock;
}

/** A user id from a path: 1 to 256 characters, no control or format characters. */
const USER_ID_PATTERN = /^[^\p{Cc}\p{Cf}]{1,256}$/u;

/** The store and the option when organizations are on. */
export interface Organizations {
  store: OrganizationStore;
  options: PermissionOptions;
}

/** A user's membership as the permission rules read it: fresh from the store, with what the role grants. */
export interface Member extends Actor {
  organizationId: string;
  userId: string;
  /** Milliseconds since the Unix epoch. */
  joinedAt: number;
}

/** The shape of an id the core made (`generateId`: base64url); anything else names no organization. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** True when `id` could name a record (so odd input never reaches a store). */
export function isPlausibleId(id: unknown): id is string {
  return typeof id === "string" && ID_PATTERN.test(id);
}

/**
 * The store and option, or `NOT_FOUND` when organizations are off (their routes and methods then
 * answer like anything that does not exist).
 */
export function organizationsOn(deps: OrganizationDeps): Organizations {
  const store = deps.organizations;
  const options = deps.options.organizations;
  if (store === undefined || options === undefined) throw new AuthError("NOT_FOUND");
  return { store, options };
}

/** The user's membership read now, or null (not a member, no such organization, odd id). */
export async function findMember(
  { store, options }: Organizations,
  organizationId: string,
  userId: string,
): Promise<Member | null> {
  if (!isPlausibleId(organizationId) || !USER_ID_PATTERN.test(userId)) return null;
  const read = await guardPort("DATABASE_FAILURE", () => store.findMembership(organizationId, userId));
  return toMember(options, organizationId, userId, read);
}

/** The member a membership read shows (null: none). */
function toMember(
  options: PermissionOptions,
  organizationId: string,
  userId: string,
  read: MembershipRead | null,
): Member | null {
  if (read === null) return null;
  const { membership, rolePermissions } = read;
  return {
    organizationId,
    userId,
    role: membership.role,
    joinedAt: membership.joinedAt,
    permissions: permissionsOfRole(options, membership.role, rolePermissions),
  };
}

/**
 * The user's membership, or `ORGANIZATION_NOT_FOUND`: a non-member learns nothing, the same answer
 * as for an organization that does not exist.
 */
export async function memberOf(
  organizations: Organizations,
  organizationId: string,
  userId: string,
): Promise<Member> {
  const member = await findMember(organizations, organizationId, userId);
  if (member === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
  return member;
}

/**
 * The principal's membership in its active organization `organizationId`, read in this request:
 * the one `authenticate` read together with the allowlist entry when it is under
 * `USER_READ_MAX_AGE_MS` old (the span of one request), else `findMember`'s read now. Null when
 * not a member.
 */
export async function activeMember(
  deps: OrganizationDeps,
  organizations: Organizations,
  principal: Principal,
  organizationId: string,
): Promise<Member | null> {
  const read = principalMembershipRead(principal);
  const clock = deps.clock;
  if (read !== undefined && clock !== undefined && read.organizationId === organizationId) {
    const age = clock.now() - read.at;
    const membership = read.membership?.membership;
    const same =
      membership === undefined ||
      (membership.organizationId === organizationId && membership.userId === principal.userId);
    if (same && age >= 0 && age <= USER_READ_MAX_AGE_MS) {
      return toMember(organizations.options, organizationId, principal.userId, read.membership);
    }
  }
  return findMember(organizations, organizationId, principal.userId);
}

/** `PERMISSION_DENIED` unless the member's role grants `permission`. */
export function assertPermission(member: Actor, permission: string): void {
  if (!member.permissions.includes(permission)) throw new AuthError("PERMISSION_DENIED");
}

/** `PERMISSION_DENIED` unless the member is an owner (deleting the organization). */
export function assertOwner(member: Actor): void {
  if (member.role !== "owner") throw new AuthError("PERMISSION_DENIED");
}

/** What `organizations.require` answers: the active organization and the member's role in it. */
export interface PermissionGrant {
  organizationId: string;
  role: string;
  permissions: string[];
}

/**
 * The check of a host's route: the principal's active organization (its access token's), the
 * membership read now (a removed or demoted member is refused on the next call, whatever the
 * token says; `activeMember`: in the same lookup as the allowlist entry where the stores allow),
 * and the permission. Without a principal `AUTHENTICATION_REQUIRED`; without an
 * active organization `NO_ACTIVE_ORGANIZATION`; an unknown permission, a membership that is gone
 * or a role without it `PERMISSION_DENIED` (also whenever organizations are off). A store failure
 * rejects with `DATABASE_FAILURE`.
 */
export async function requirePermission(
  deps: OrganizationDeps,
  principal: Principal | null | undefined,
  permission: string,
): Promise<PermissionGrant> {
  const store = deps.organizations;
  const options = deps.options.organizations;
  if (store === undefined || options === undefined) throw new AuthError("PERMISSION_DENIED");
  if (!isIssuedPrincipal(principal)) throw new AuthError("AUTHENTICATION_REQUIRED");
  const organizationId = principal.activeOrganizationId;
  if (organizationId === null) throw new AuthError("NO_ACTIVE_ORGANIZATION");
  if (typeof permission !== "string" || !isKnownPermission(options, permission))
    throw new AuthError("PERMISSION_DENIED");
  if (principal.apiKey !== null) return keyGrant(options, organizationId, principal.apiKey, permission);
  const member = await activeMember(deps, { store, options }, principal, organizationId);
  if (member === null) throw new AuthError("PERMISSION_DENIED");
  assertPermission(member, permission);
  return { organizationId, role: member.role, permissions: [...member.permissions] };
}

/**
 * An organization's API key acts with the permissions it was given (those the host still
 * declares), read with the key in this request: no membership, so it outlives its creator's.
 */
function keyGrant(
  options: PermissionOptions,
  organizationId: string,
  key: PrincipalApiKey,
  permission: string,
): PermissionGrant {
  const permissions = (key.permissions ?? []).filter((granted) => isKnownPermission(options, granted));
  if (!permissions.includes(permission)) throw new AuthError("PERMISSION_DENIED");
  return { organizationId, role: "api-key", permissions };
}

/**
 * Whether the principal may do `permission` in its active organization now: `requirePermission`
 * as a boolean. Fails closed: every refusal is false, and a store failure rejects (never true).
 */
export async function can(
  deps: OrganizationDeps,
  principal: Principal | null | undefined,
  permission: string,
): Promise<boolean> {
  try {
    await requirePermission(deps, principal, permission);
    return true;
  } catch (error) {
    if (isInfrastructureFailure(error)) throw error;
    return false;
  }
}

/**
 * Adds a membership made outside an invitation (an SSO sign-in, a SCIM directory): "added", or
 * "exists" when the user is a member already (also one added at the same moment: the store's
 * add is atomic). `NOT_FOUND` when the store cannot add members; `ORGANIZATION_NOT_FOUND` when
 * the organization is gone. The caller emits `member.joined` for "added", with its own actor.
 */
export async function addMembership(
  organizations: Organizations,
  membership: MembershipRecord,
): Promise<"added" | "exists"> {
  const addMember = organizations.store.addMember?.bind(organizations.store);
  if (addMember === undefined) throw new AuthError("NOT_FOUND");
  const outcome = await guardPort("DATABASE_FAILURE", () => addMember(membership));
  if (outcome === "not-found") throw new AuthError("ORGANIZATION_NOT_FOUND");
  return outcome;
}
