import type { ScimResult } from "./errors.js";
import { guard } from "./read-json.js";
import { readGroupAttributes, readUserAttributes, type ScimUserAttributesRead } from "./read-resources.js";
import type { ScimGroup, ScimGroupAttributes, ScimUser } from "./resources.js";

/** A stored attribute of a user that a write can change. */
export type ScimUserField = "externalId" | "userName" | "active" | "name" | "displayName" | "emails";

/** A stored attribute of a group that a write can change. */
export type ScimGroupField = "externalId" | "displayName" | "members";

/**
 * What a write changed on a user: the fields whose stored value differs, and whether `active`
 * went from true to false (`deactivated`: end the user's sessions, API keys and grants) or from
 * false to true (`reactivated`: restore the memberships).
 */
export interface ScimUserChanges {
  fields: ScimUserField[];
  deactivated: boolean;
  reactivated: boolean;
}

/** What a write changed on a group: the fields, and the user ids that joined or left it. */
export interface ScimGroupChanges {
  fields: ScimGroupField[];
  membersAdded: string[];
  membersRemoved: string[];
}

/** A resource after a write, with what changed; unchanged when `changes.fields` is empty. */
export interface ScimWrite<R, C> {
  resource: R;
  changes: C;
}

/** Options of a write (PUT or PATCH). */
export interface ScimWriteOptions {
  /** ms since the epoch: the new `lastModified` when something changed (unchanged when absent). */
  now?: number;
}

/** The fields of `after` that differ from `before`, and the changes of `active`. */
export function diffScimUser(before: ScimUser, after: ScimUser): ScimUserChanges {
  const same: Record<ScimUserField, boolean> = {
    externalId: before.externalId === after.externalId,
    userName: before.userName === after.userName,
    active: before.active === after.active,
    name: JSON.stringify(before.name) === JSON.stringify(after.name),
    displayName: before.displayName === after.displayName,
    emails: JSON.stringify(before.emails) === JSON.stringify(after.emails),
  };
  const fields = (Object.keys(same) as ScimUserField[]).filter((field) => !same[field]);
  return {
    fields,
    deactivated: before.active && !after.active,
    reactivated: !before.active && after.active,
  };
}

/** The fields of `after` that differ from `before`, and the members added and removed (in order). */
export function diffScimGroup(before: ScimGroup, after: ScimGroup): ScimGroupChanges {
  const had = new Set(before.members);
  const has = new Set(after.members);
  const membersAdded = after.members.filter((id) => !had.has(id));
  const membersRemoved = before.members.filter((id) => !has.has(id));
  const fields: ScimGroupField[] = [];
  if (before.externalId !== after.externalId) fields.push("externalId");
  if (before.displayName !== after.displayName) fields.push("displayName");
  if (membersAdded.length > 0 || membersRemoved.length > 0) fields.push("members");
  return { fields, membersAdded, membersRemoved };
}

/** `existing` with the attributes read; `active` kept when the read does not set it. */
export function writeUserAttributes(
  existing: ScimUser,
  read: ScimUserAttributesRead,
  options: ScimWriteOptions,
): ScimWrite<ScimUser, ScimUserChanges> {
  const next: ScimUser = { ...existing, ...read, active: read.active ?? existing.active };
  const changes = diffScimUser(existing, next);
  const touched = changes.fields.length > 0 && options.now !== undefined;
  return {
    resource: { ...next, lastModified: touched ? (options.now as number) : existing.lastModified },
    changes,
  };
}

/** `existing` with the group attributes given. */
export function writeGroupAttributes(
  existing: ScimGroup,
  attributes: ScimGroupAttributes,
  options: ScimWriteOptions,
): ScimWrite<ScimGroup, ScimGroupChanges> {
  const next: ScimGroup = { ...existing, ...attributes };
  const changes = diffScimGroup(existing, next);
  const touched = changes.fields.length > 0 && options.now !== undefined;
  return {
    resource: { ...next, lastModified: touched ? (options.now as number) : existing.lastModified },
    changes,
  };
}

/**
 * `PUT /Users/:id` (Okta sends the whole user): the user with the body's attributes, read and
 * refused as `readScimUser` does. Read-only attributes in the body (`id`, `groups`, `meta`) are
 * ignored (RFC 7644 §3.5.1); a body without `active` keeps the user's. The caller checks a new
 * `userName` is free, stores the user when `changes.fields` is not empty, and acts on
 * `changes.deactivated` / `changes.reactivated`.
 */
export function replaceScimUser(
  existing: ScimUser,
  body: unknown,
  options: ScimWriteOptions = {},
): ScimResult<ScimWrite<ScimUser, ScimUserChanges>> {
  return guard(() => writeUserAttributes(existing, readUserAttributes(body, true), options));
}

/** `PUT /Groups/:id`: the group with the body's attributes (its `members` replace the old ones). */
export function replaceScimGroup(
  existing: ScimGroup,
  body: unknown,
  options: ScimWriteOptions = {},
): ScimResult<ScimWrite<ScimGroup, ScimGroupChanges>> {
  return guard(() => writeGroupAttributes(existing, readGroupAttributes(body, true), options));
}
