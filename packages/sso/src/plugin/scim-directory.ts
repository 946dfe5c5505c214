import type { ScimGroupRecord, ScimUserRecord } from "@portcullis/core";
import type { ScimEmail, ScimGroup, ScimName, ScimUser } from "../scim/resources.js";
import { stored } from "./context.js";
import type { ScimCall } from "./scim-http.js";

// A connection's SCIM directory as the routes see it: the stored records as SCIM's resources, and
// what a change of a user or a group does to the accounts' memberships (docs/sso.md, "SCIM").

/** What a stored user keeps in `attributes`: the SCIM attributes the store does not index. */
interface KeptAttributes {
  name: ScimName | null;
  displayName: string | null;
  emails: ScimEmail[];
}

/** The attributes of `user` the store keeps as JSON. */
export const keptAttributes = (user: KeptAttributes): Record<string, unknown> => ({
  name: user.name,
  displayName: user.displayName,
  emails: user.emails,
});

/** A stored user as the SCIM resource, with the ids of its groups. */
export function userOf(record: ScimUserRecord, groupIds: readonly string[]): ScimUser {
  const kept = record.attributes as Partial<KeptAttributes>;
  return {
    id: record.id,
    externalId: record.externalId,
    userName: record.userName,
    active: record.active,
    name: kept.name ?? null,
    displayName: kept.displayName ?? null,
    emails: kept.emails ?? [],
    groups: [...groupIds],
    created: record.createdAt,
    lastModified: record.updatedAt,
  };
}

/** A stored group as the SCIM resource. */
export function groupOf(record: ScimGroupRecord): ScimGroup {
  return {
    id: record.id,
    externalId: record.externalId,
    displayName: record.displayName,
    members: [...record.memberIds],
    created: record.createdAt,
    lastModified: record.updatedAt,
  };
}

/**
 * The address the account is provisioned for: the primary address, else the first, else a
 * `userName` that is an address (Okta's and Entra ID's usual user names); null without any.
 */
export function addressOf(user: Pick<ScimUser, "emails" | "userName">): string | null {
  const email = user.emails.find((candidate) => candidate.primary) ?? user.emails[0];
  if (email !== undefined) return email.value;
  return user.userName.includes("@") ? user.userName : null;
}

/** The account's name: the display name, else the formatted name, else given and family names. */
export function nameOf(user: Pick<ScimUser, "name" | "displayName">): string | null {
  if (user.displayName) return user.displayName;
  if (user.name?.formatted) return user.name.formatted;
  const parts = [user.name?.givenName, user.name?.familyName].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : null;
}

/** The groups of any of the users, ascending by id, in one read. */
const groupsOfUsers = (call: ScimCall, userScimIds: readonly string[]) =>
  stored(() => call.scim.listScimGroupsOfUsers(call.connectionId, userScimIds));

/** A stored user as the SCIM resource with those of `groups` naming it: their ids, and their names. */
function resourceOf(record: ScimUserRecord, groups: readonly ScimGroupRecord[]) {
  const own = groups.filter((group) => group.memberIds.includes(record.id));
  return {
    user: userOf(
      record,
      own.map((group) => group.id),
    ),
    groupNames: own.map((group) => group.displayName),
  };
}

/**
 * A stored user as the SCIM resource, its groups read once: their ids for the resource, their
 * names for the role they decide (`auth.sso.setMemberRole`).
 */
export async function withGroups(
  call: ScimCall,
  record: ScimUserRecord,
): Promise<{ user: ScimUser; groupNames: string[] }> {
  return resourceOf(record, await groupsOfUsers(call, [record.id]));
}

/** How many users' groups one read asks for (a scan for a filter no index answers reads many). */
const USERS_PER_GROUP_READ = 500;

/** Stored users (a list's page, or a scan) as SCIM resources: the groups of 500 users in one read. */
export async function usersWithGroups(
  call: ScimCall,
  records: readonly ScimUserRecord[],
): Promise<ScimUser[]> {
  const users: ScimUser[] = [];
  for (let start = 0; start < records.length; start += USERS_PER_GROUP_READ) {
    const slice = records.slice(start, start + USERS_PER_GROUP_READ);
    const groups = await groupsOfUsers(
      call,
      slice.map((record) => record.id),
    );
    users.push(...slice.map((record) => resourceOf(record, groups).user));
  }
  return users;
}

/**
 * Brings an active user's account in line: a member of the organization, with the role its
 * groups (`groupNames`) decide when one is named after a role (the one granting the most), else
 * `restore` (the role it had when deactivated) when given, else the role it has (the connection's
 * default role for a new member). Safe to repeat: a write that failed halfway is finished by the
 * identity provider's next request.
 */
export async function syncActiveMember(
  call: ScimCall,
  user: ScimUserRecord,
  groupNames: readonly string[],
  restore: string | null = null,
): Promise<void> {
  await call.ctx.auth.sso.setMemberRole(
    { request: call.input.meta },
    { connectionId: call.connectionId, userId: user.userId, groups: groupNames, restore },
  );
}

/**
 * A group's change reached these users: each active one's role follows its groups now; `left`
 * names the group they left (or its name before a rename or deletion), so that leaving a group
 * named after a role gives the default role unless another group names one.
 */
export async function syncGroupMembers(
  call: ScimCall,
  userScimIds: readonly string[],
  left: readonly string[] = [],
): Promise<void> {
  for (const id of new Set(userScimIds)) {
    const user = await stored(() => call.scim.findScimUser(call.connectionId, id));
    if (user === null || !user.active) continue;
    await call.ctx.auth.sso.setMemberRole(
      { request: call.input.meta },
      {
        connectionId: call.connectionId,
        userId: user.userId,
        groups: (await withGroups(call, user)).groupNames,
        left,
      },
    );
  }
}

/**
 * The directory deactivated or deleted the user: its membership removed, its sessions, API keys
 * and grants ended (`auth.sso.suspendMember`). The role it had, to give back on reactivation.
 */
export async function suspendUser(call: ScimCall, user: ScimUserRecord): Promise<string | null> {
  const { suspendedRole } = await call.ctx.auth.sso.suspendMember(
    { request: call.input.meta },
    { connectionId: call.connectionId, userId: user.userId },
  );
  return suspendedRole ?? user.suspendedRole;
}
