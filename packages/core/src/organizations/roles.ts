import { AuthError } from "../errors.js";
import {
  MANAGEMENT_PERMISSIONS,
  type ResolvedOrganizationsOptions,
} from "../options/organization-options.js";

/** The roles every organization has built in. */
export const BUILT_IN_ROLES = ["owner", "admin", "member"] as const;

/** A built-in role's name. */
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

/** True for `owner`, `admin` and `member`. */
export function isBuiltInRole(role: string): role is BuiltInRole {
  return (BUILT_IN_ROLES as readonly string[]).includes(role);
}

/** The `organizations` option as the permission rules read it. */
export type PermissionOptions = NonNullable<ResolvedOrganizationsOptions>;

/** Every permission a role can hold: the host's declared ones, then the built-in management ones. */
export function allPermissions(options: PermissionOptions): string[] {
  return [...options.permissions, ...MANAGEMENT_PERMISSIONS];
}

/** True when `permission` is declared by the host or built in. */
export function isKnownPermission(options: PermissionOptions, permission: string): boolean {
  return (
    options.permissions.includes(permission) ||
    (MANAGEMENT_PERMISSIONS as readonly string[]).includes(permission)
  );
}

/**
 * What a role grants. `owner` and `admin`: every declared and management permission (what sets
 * them apart, deleting the organization and granting or taking away `owner`, is no permission but
 * a rule for owners alone). `member`: `memberPermissions`. A custom role: its stored permissions
 * that are still known (a permission the host stopped declaring grants nothing); a custom role
 * that is gone (`stored` null): nothing.
 */
export function permissionsOfRole(
  options: PermissionOptions,
  role: string,
  stored: string[] | null,
): string[] {
  if (role === "owner" || role === "admin") return allPermissions(options);
  if (role === "member") return [...options.memberPermissions];
  return (stored ?? []).filter((permission) => isKnownPermission(options, permission));
}

/** Someone acting in an organization: their role and what it grants, as read from the store now. */
export interface Actor {
  role: string;
  permissions: readonly string[];
}

/**
 * Refuses (`PERMISSION_DENIED`) when `actor` lacks one of `permissions`: nobody hands out (to a
 * role, an invitation or a member) a permission they do not hold.
 */
export function assertHoldsAll(actor: Actor, permissions: readonly string[]): void {
  if (!permissions.every((permission) => actor.permissions.includes(permission)))
    throw new AuthError("PERMISSION_DENIED");
}

/**
 * The escalation rules of giving a role (`role`, granting `grants`) to someone, by invitation or
 * a role change: only an owner makes an owner, and nobody grants a role with a permission they
 * lack (so `admin` is granted only by owners and admins).
 */
export function assertMayGrant(actor: Actor, role: string, grants: readonly string[]): void {
  if (role === "owner" && actor.role !== "owner") throw new AuthError("PERMISSION_DENIED");
  assertHoldsAll(actor, grants);
}

/**
 * The rules of changing or removing a member who holds `role` (granting `holds`): only an owner
 * demotes or removes an owner, and nobody changes or removes a member whose role holds a
 * permission they lack (a lesser role cannot demote a greater one).
 */
export function assertMayChange(actor: Actor, role: string, holds: readonly string[]): void {
  if (role === "owner" && actor.role !== "owner") throw new AuthError("PERMISSION_DENIED");
  assertHoldsAll(actor, holds);
}
