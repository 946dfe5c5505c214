import { AuthError, guardPort, ValidationError } from "../errors.js";
import type { SecurityEvents, SecurityEventType } from "../events.js";
import type { Call, Principal, RequestContext } from "../model.js";
import type { OrganizationRecord } from "../ports/organization-store.js";
import { signedIn } from "../sessions/signed-in.js";
import { fieldIssue } from "../validation.js";
import {
  type Member,
  memberOf,
  type OrganizationDeps,
  type Organizations,
  organizationsOn,
} from "./membership.js";
import { isBuiltInRole, type PermissionOptions, permissionsOfRole } from "./roles.js";

/** A signed-in member acting in one of their organizations, as an organization's use case starts. */
export interface ActingMember {
  organizations: Organizations;
  principal: Principal;
  /** The caller's membership, read now. */
  member: Member;
  request: RequestContext;
}

/**
 * The first steps of every use case of one organization: organizations on (`NOT_FOUND`), a signed-in
 * caller (`AUTHENTICATION_REQUIRED`), and their membership read now (`ORGANIZATION_NOT_FOUND` for a
 * non-member, as for an organization that does not exist).
 */
export async function actingMember(
  deps: OrganizationDeps,
  call: Call,
  organizationId: string,
): Promise<ActingMember> {
  const organizations = organizationsOn(deps);
  const principal = signedIn(call);
  const member = await memberOf(organizations, organizationId, principal.userId);
  return { organizations, principal, member, request: call.request ?? {} };
}

/**
 * Emits `type` for what the acting member did in the organization: the caller as `actor` and as
 * `userId` (unless `details.userId` names the member it was done to), `reason` when given.
 */
export function emitMemberAction(
  events: SecurityEvents,
  { principal, request }: Pick<ActingMember, "principal" | "request">,
  type: SecurityEventType,
  details: { organizationId: string; userId?: string; reason?: string | undefined },
): void {
  events.emit(type, {
    ...request,
    userId: details.userId ?? principal.userId,
    sessionId: principal.sessionId,
    actor: principal.userId,
    organizationId: details.organizationId,
    ...(details.reason === undefined ? {} : { reason: details.reason }),
  });
}

/** The organization's record; `ORGANIZATION_NOT_FOUND` when it went (deleted meanwhile). */
export async function organizationRecord(
  { store }: Organizations,
  organizationId: string,
): Promise<OrganizationRecord> {
  const record = await guardPort("DATABASE_FAILURE", () => store.findOrganization(organizationId));
  if (record === null) throw new AuthError("ORGANIZATION_NOT_FOUND");
  return record;
}

/**
 * What a role of the organization grants, for giving it to someone: a built-in role's, or the
 * stored custom role's; `VALIDATION_FAILED` (at `role`) when the organization has no such role.
 */
export async function grantsOfRole(
  { store, options }: Organizations,
  organizationId: string,
  role: string,
): Promise<string[]> {
  if (isBuiltInRole(role)) return permissionsOfRole(options, role, null);
  const roles = await guardPort("DATABASE_FAILURE", () => store.listRoles(organizationId));
  const found = roles.find((candidate) => candidate.name === role);
  if (found === undefined) throw unknownRole();
  return permissionsOfRole(options, role, found.permissions);
}

/** `VALIDATION_FAILED` at `role`: a role the organization does not have. */
export function unknownRole(): ValidationError {
  return new ValidationError([fieldIssue("role", "invalid")]);
}

/** `VALIDATION_FAILED` unless every permission is declared or built in (a role picks only from those). */
export function assertKnownPermissions(options: PermissionOptions, permissions: readonly string[]): void {
  const known = new Set([...options.permissions, ...permissionsOfRole(options, "owner", null)]);
  if (!permissions.every((permission) => known.has(permission)))
    throw new ValidationError([fieldIssue("permissions", "invalid")]);
}
