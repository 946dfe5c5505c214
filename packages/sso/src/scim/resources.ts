import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from "./urns.js";

/** A user's name as kept; a name with no part set is kept as null. */
export interface ScimName {
  givenName: string | null;
  familyName: string | null;
  formatted: string | null;
}

/** One address of a user; `type` is lower case ("work", "home", "other") or null. */
export interface ScimEmail {
  value: string;
  type: string | null;
  primary: boolean;
}

/**
 * A user provisioned by SCIM, as the server keeps it. `userName` is unique per connection and
 * compared without case (RFC 7643: `caseExact` false); `externalId` is the identity provider's
 * own id (compared with case). `groups` (the ids of the groups it belongs to) is read-only in
 * SCIM: membership changes through the groups. Times are ms since the epoch.
 */
export interface ScimUser {
  id: string;
  externalId: string | null;
  userName: string;
  active: boolean;
  name: ScimName | null;
  displayName: string | null;
  emails: ScimEmail[];
  groups: string[];
  created: number;
  lastModified: number;
}

/** A group provisioned by SCIM (a role in the organization); `members` are user ids, without repeats. */
export interface ScimGroup {
  id: string;
  externalId: string | null;
  displayName: string;
  members: string[];
  created: number;
  lastModified: number;
}

/** The attributes of a user a client writes (POST, PUT, PATCH); the rest is the server's. */
export type ScimUserAttributes = Pick<
  ScimUser,
  "externalId" | "userName" | "active" | "name" | "displayName" | "emails"
>;

/** The attributes of a group a client writes. */
export type ScimGroupAttributes = Pick<ScimGroup, "externalId" | "displayName" | "members">;

/** `meta` of a resource (RFC 7643 §3.1); times in ISO 8601, `version` a weak ETag of `lastModified`. */
export interface ScimMetaJson {
  resourceType: "User" | "Group";
  created: string;
  lastModified: string;
  location: string;
  version: string;
}

/** A user as answered (RFC 7643 §4.1); unassigned attributes are left out. */
export interface ScimUserJson {
  schemas: [typeof SCIM_USER_SCHEMA];
  id: string;
  externalId?: string;
  userName: string;
  name?: { givenName?: string; familyName?: string; formatted?: string };
  displayName?: string;
  active: boolean;
  emails: Array<{ value: string; type?: string; primary: boolean }>;
  groups: Array<{ value: string; $ref: string; display?: string }>;
  meta: ScimMetaJson;
}

/** A group as answered (RFC 7643 §4.2). */
export interface ScimGroupJson {
  schemas: [typeof SCIM_GROUP_SCHEMA];
  id: string;
  externalId?: string;
  displayName: string;
  members: Array<{ value: string; $ref: string; type: "User"; display?: string }>;
  meta: ScimMetaJson;
}

/** What the answer of a resource needs besides the resource. */
export interface ScimJsonOptions {
  /** The SCIM root, e.g. `https://app.example.com/api/auth/scim/v2` (a trailing slash is dropped). */
  baseUrl: string;
  /** Names to show as `display` of groups (for users) or members (for groups), by id; optional. */
  displayNames?: ReadonlyMap<string, string>;
}

/** The base URL without trailing slashes. */
export function scimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** The location of a resource: `<baseUrl>/Users/<id>` or `<baseUrl>/Groups/<id>`. */
export function scimLocation(baseUrl: string, resourceType: "User" | "Group", id: string): string {
  return `${scimBase(baseUrl)}/${resourceType === "User" ? "Users" : "Groups"}/${encodeURIComponent(id)}`;
}

function meta(
  resourceType: "User" | "Group",
  resource: { id: string; created: number; lastModified: number },
  baseUrl: string,
): ScimMetaJson {
  return {
    resourceType,
    created: new Date(resource.created).toISOString(),
    lastModified: new Date(resource.lastModified).toISOString(),
    location: scimLocation(baseUrl, resourceType, resource.id),
    version: `W/"${resource.lastModified.toString(36)}"`,
  };
}

function nameJson(name: ScimName): NonNullable<ScimUserJson["name"]> {
  const json: NonNullable<ScimUserJson["name"]> = {};
  if (name.givenName !== null) json.givenName = name.givenName;
  if (name.familyName !== null) json.familyName = name.familyName;
  if (name.formatted !== null) json.formatted = name.formatted;
  return json;
}

function withDisplay<T extends { value: string }>(
  item: T,
  names: ReadonlyMap<string, string> | undefined,
): T & { display?: string } {
  const display = names?.get(item.value);
  return display === undefined ? item : { ...item, display };
}

/** The SCIM JSON of a stored user, with `meta` (location, version) built from `options.baseUrl`. */
export function toScimUserJson(user: ScimUser, options: ScimJsonOptions): ScimUserJson {
  const json: ScimUserJson = {
    schemas: [SCIM_USER_SCHEMA],
    id: user.id,
    userName: user.userName,
    active: user.active,
    emails: user.emails.map((email) =>
      email.type === null
        ? { value: email.value, primary: email.primary }
        : { value: email.value, type: email.type, primary: email.primary },
    ),
    groups: user.groups.map((id) =>
      withDisplay({ value: id, $ref: scimLocation(options.baseUrl, "Group", id) }, options.displayNames),
    ),
    meta: meta("User", user, options.baseUrl),
  };
  if (user.externalId !== null) json.externalId = user.externalId;
  if (user.name !== null) json.name = nameJson(user.name);
  if (user.displayName !== null) json.displayName = user.displayName;
  return json;
}

/** The SCIM JSON of a stored group, its members as `{ value, $ref, type: "User" }`. */
export function toScimGroupJson(group: ScimGroup, options: ScimJsonOptions): ScimGroupJson {
  const json: ScimGroupJson = {
    schemas: [SCIM_GROUP_SCHEMA],
    id: group.id,
    displayName: group.displayName,
    members: group.members.map((id) =>
      withDisplay(
        { value: id, $ref: scimLocation(options.baseUrl, "User", id), type: "User" as const },
        options.displayNames,
      ),
    ),
    meta: meta("Group", group, options.baseUrl),
  };
  if (group.externalId !== null) json.externalId = group.externalId;
  return json;
}
