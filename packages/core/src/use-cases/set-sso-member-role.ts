import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import {
  addMembership,
  findMember,
  type Organizations,
  organizationsOn,
} from "../organizations/membership.js";
import { isBuiltInRole, permissionsOfRole } from "../organizations/roles.js";
import type { SsoConnectionRecord } from "../ports/sso-store.js";
import { provisioningConnection } from "../sso/provisioning.js";

/** What `setSsoMemberRole` is told about the user's groups in the connection's directory. */
export interface SsoMemberGroups {
  connectionId: string;
  userId: string;
  /** The names of the groups the user is in now. */
  groups: readonly string[];
  /** Names of groups the user has just left (or that were renamed or deleted): one naming a role takes it away. */
  left?: readonly string[];
  /** The role the user had when deactivated, given back when no group names a role. */
  restore?: string | null;
}

/**
 * Makes the account a member of the connection's organization, or changes its role
 * (`auth.sso.setMemberRole`, for SCIM's users and groups). The role is, in turn: of the `groups`
 * that name a role of the organization (compared without case), the one granting the most
 * permissions (the first such on a tie); else `restore` when it names one; else, for a member, the
 * role it has, unless one of `left` names a role (then the connection's default role: leaving the
 * admins' group takes admin away); for a new member, the default role. `owner` is never given,
 * and an owner's membership is left as it is: the directory never takes an organization's owners
 * away. `USER_NOT_FOUND` for an account that is gone; emits `member.joined` or
 * `member.role_changed` with the connection as the actor.
 */
export async function setSsoMemberRole(
  ctx: AuthContext,
  { request = {} }: Call,
  input: SsoMemberGroups,
): Promise<{ role: string; previousRole: string | null }> {
  const { connection, scim } = await provisioningConnection(ctx, input.connectionId);
  const organizations = organizationsOn(ctx);
  const { organizationId } = connection;
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(input.userId));
  if (user === null) throw new AuthError("USER_NOT_FOUND");
  const current = await findMember(organizations, organizationId, user.id);
  if (current?.role === "owner") return { role: "owner", previousRole: "owner" };
  const role = await roleFor(organizations, connection, current?.role ?? null, input);
  const event = { ...request, userId: user.id, organizationId, reason: role };
  if (current === null) {
    const membership = { organizationId, userId: user.id, role, joinedAt: ctx.clock.now() };
    const added = await addMembership(organizations, membership);
    // "exists": a sign-in made the membership at the same moment; its role is changed below.
    if (added === "added") {
      scim.events.emit("member.joined", event);
      return { role, previousRole: null };
    }
  } else if (current.role === role) return { role, previousRole: role };
  const changed = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.changeMemberRole(organizationId, user.id, role),
  );
  if (changed === "not-found") throw new AuthError("ORGANIZATION_NOT_FOUND");
  if (changed === "last-owner") return { role: "owner", previousRole: "owner" };
  scim.events.emit("member.role_changed", event);
  return { role, previousRole: current?.role ?? null };
}

/** The role `setSsoMemberRole` gives (see there), `current` the member's role (null: none). */
async function roleFor(
  organizations: Organizations,
  connection: SsoConnectionRecord,
  current: string | null,
  { groups, left = [], restore = null }: SsoMemberGroups,
): Promise<string> {
  const roles = await rolesOf(organizations, connection.organizationId);
  const named = (names: readonly string[]) => best(roles, names);
  const chosen = named(groups) ?? (restore === null ? undefined : named([restore]));
  if (chosen !== undefined) return chosen.name;
  if (current === null) return connection.defaultRole;
  return named(left) === undefined ? current : connection.defaultRole;
}

/** A role the directory can give, with what it grants. */
interface GivenRole {
  name: string;
  permissions: string[];
}

/** The roles of the organization the directory can give: `admin`, `member` and its custom roles. */
async function rolesOf({ store, options }: Organizations, organizationId: string): Promise<GivenRole[]> {
  const custom = await guardPort("DATABASE_FAILURE", () => store.listRoles(organizationId));
  return [
    ...["admin", "member"].map((name) => ({ name, permissions: permissionsOfRole(options, name, null) })),
    ...custom
      .filter((role) => !isBuiltInRole(role.name))
      .map((role) => ({
        name: role.name,
        permissions: permissionsOfRole(options, role.name, role.permissions),
      })),
  ];
}

/** Of the roles `names` name (without case), the one granting the most (the first on a tie). */
function best(roles: readonly GivenRole[], names: readonly string[]): GivenRole | undefined {
  let found: GivenRole | undefined;
  for (const name of names) {
    const role = roles.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
    if (role !== undefined && (found === undefined || role.permissions.length > found.permissions.length))
      found = role;
  }
  return found;
}
