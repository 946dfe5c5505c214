import type { ApiKeyRecord } from "@portcullis/core";
import { toNumber } from "./context.js";

/** A row of `<prefix>api_keys` (migration 0014); `permissions` is a JSON array, times are milliseconds. */
export interface ApiKeyRow {
  id: string;
  lookup_id: string;
  key_hash: string;
  name: string;
  start: string;
  user_id: string;
  organization_id: string | null;
  permissions: string | null;
  created_at: number | string;
  expires_at: number | string | null;
  last_used_at: number | string | null;
}

/** A row as the record it stores. */
export const fromRow = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  lookupId: row.lookup_id,
  keyHash: row.key_hash,
  name: row.name,
  start: row.start,
  userId: row.user_id,
  organizationId: row.organization_id,
  permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as string[]),
  createdAt: toNumber(row.created_at),
  expiresAt: row.expires_at === null ? null : toNumber(row.expires_at),
  lastUsedAt: row.last_used_at === null ? null : toNumber(row.last_used_at),
});
