import { createHash } from "node:crypto";
import type { ScimGroupPatch, ScimGroupRecord, ScimUserPatch, ScimUserRecord } from "@portcullis/core";
import { toBoolean, toNumber } from "./context.js";

/**
 * The rows of migration `0020_scim`: `active` is 0 or 1 (PostgreSQL: a boolean), attributes are
 * JSON, times are milliseconds; bigints come back as strings from PostgreSQL.
 */
type Epoch = number | string;

/**
 * The indexed form of a name or an external id (`*_key` columns): the value itself when it is at
 * most 200 characters long and does not start with `sha256:`, else `sha256:` and its SHA-256
 * (base64url). Two values have one key only if they are equal, and every key fits 255 characters.
 */
export function scimKey(value: string): string {
  if (value.length <= 200 && !value.startsWith("sha256:")) return value;
  return `sha256:${createHash("sha256").update(value).digest("base64url")}`;
}

/** The indexed form of a name compared without case: `scimKey` of it lower-cased (JavaScript's `toLowerCase`). */
export const scimNameKey = (name: string): string => scimKey(name.toLowerCase());

const externalIdKey = (externalId: string | null): string | null =>
  externalId === null ? null : scimKey(externalId);

/** A row of `<prefix>scim_users`. */
export interface ScimUserRow {
  id: string;
  connection_id: string;
  user_id: string;
  user_name: string;
  user_name_key: string;
  external_id: string | null;
  external_id_key: string | null;
  active: boolean | number;
  suspended_role: string | null;
  attributes: string;
  version: number | string;
  created_at: Epoch;
  updated_at: Epoch;
}

/** A row of `<prefix>scim_groups`. */
export interface ScimGroupRow {
  id: string;
  connection_id: string;
  display_name: string;
  display_name_key: string;
  external_id: string | null;
  external_id_key: string | null;
  role: string | null;
  version: number | string;
  created_at: Epoch;
  updated_at: Epoch;
}

/** A user's row. */
export const scimUserRow = (user: ScimUserRecord): ScimUserRow => ({
  id: user.id,
  connection_id: user.connectionId,
  user_id: user.userId,
  user_name: user.userName,
  user_name_key: scimNameKey(user.userName),
  external_id: user.externalId,
  external_id_key: externalIdKey(user.externalId),
  active: user.active ? 1 : 0,
  suspended_role: user.suspendedRole,
  attributes: JSON.stringify(user.attributes),
  version: user.version,
  created_at: user.createdAt,
  updated_at: user.updatedAt,
});

/** The user of a row. */
export const scimUserOf = (row: ScimUserRow): ScimUserRecord => ({
  connectionId: row.connection_id,
  id: row.id,
  userId: row.user_id,
  userName: row.user_name,
  externalId: row.external_id,
  active: toBoolean(row.active),
  suspendedRole: row.suspended_role,
  attributes: JSON.parse(row.attributes) as Record<string, unknown>,
  version: toNumber(row.version),
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
});

/** The columns `patch` changes, and `updated_at` (the version is the caller's). */
export function scimUserPatchColumns(patch: ScimUserPatch & { updatedAt: number }): Partial<ScimUserRow> {
  const columns: Partial<ScimUserRow> = { updated_at: patch.updatedAt };
  if (patch.userName !== undefined) {
    columns.user_name = patch.userName;
    columns.user_name_key = scimNameKey(patch.userName);
  }
  if (patch.externalId !== undefined) {
    columns.external_id = patch.externalId;
    columns.external_id_key = externalIdKey(patch.externalId);
  }
  if (patch.active !== undefined) columns.active = patch.active ? 1 : 0;
  if (patch.suspendedRole !== undefined) columns.suspended_role = patch.suspendedRole;
  if (patch.attributes !== undefined) columns.attributes = JSON.stringify(patch.attributes);
  return columns;
}

/** A group's row (its members are rows of `<prefix>scim_group_members`). */
export const scimGroupRow = (group: ScimGroupRecord): ScimGroupRow => ({
  id: group.id,
  connection_id: group.connectionId,
  display_name: group.displayName,
  display_name_key: scimNameKey(group.displayName),
  external_id: group.externalId,
  external_id_key: externalIdKey(group.externalId),
  role: group.role,
  version: group.version,
  created_at: group.createdAt,
  updated_at: group.updatedAt,
});

/** The group of a row, with its members' ids (ascending). */
export const scimGroupOf = (row: ScimGroupRow, memberIds: string[]): ScimGroupRecord => ({
  connectionId: row.connection_id,
  id: row.id,
  displayName: row.display_name,
  externalId: row.external_id,
  role: row.role,
  memberIds,
  version: toNumber(row.version),
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
});

/** The columns `patch` changes but the members, and `updated_at`. */
export function scimGroupPatchColumns(patch: ScimGroupPatch & { updatedAt: number }): Partial<ScimGroupRow> {
  const columns: Partial<ScimGroupRow> = { updated_at: patch.updatedAt };
  if (patch.displayName !== undefined) {
    columns.display_name = patch.displayName;
    columns.display_name_key = scimNameKey(patch.displayName);
  }
  if (patch.externalId !== undefined) {
    columns.external_id = patch.externalId;
    columns.external_id_key = externalIdKey(patch.externalId);
  }
  if (patch.role !== undefined) columns.role = patch.role;
  return columns;
}
