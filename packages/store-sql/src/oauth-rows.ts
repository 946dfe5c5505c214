import type {
  OAuthClientPatch,
  OAuthClientRecord,
  OAuthConsentRecord,
  OAuthDeviceRecord,
  OAuthGrantRecord,
} from "@portcullis/core";
import { toBoolean, toNumber } from "./context.js";

/**
 * The rows of migration `0018_oauth`: lists are JSON arrays, `dynamic` is 0 or 1 (PostgreSQL: a
 * boolean), times are milliseconds; bigints come back as strings from PostgreSQL.
 */
type Epoch = number | string;

/** A row of `<prefix>oauth_clients`. */
export interface ClientRow {
  client_id: string;
  name: string;
  secret_hash: string | null;
  redirect_uris: string;
  grant_types: string;
  scopes: string;
  dynamic: boolean | number;
  created_at: Epoch;
}

/** A row of `<prefix>oauth_grants`. */
export interface GrantRow {
  grant_id: string;
  client_id: string;
  user_id: string | null;
  scopes: string;
  resources: string;
  auth_time: Epoch | null;
  refresh_hash: string | null;
  created_at: Epoch;
  expires_at: Epoch;
  revoked_at: Epoch | null;
}

/** A row of `<prefix>oauth_consents`. */
export interface ConsentRow {
  user_id: string;
  client_id: string;
  scopes: string;
  created_at: Epoch;
  updated_at: Epoch;
}

/** A row of `<prefix>oauth_devices`; `status` is `pending`, `approved` or `denied`. */
export interface DeviceRow {
  device_code_hash: string;
  user_code_hash: string;
  client_id: string;
  scopes: string;
  resources: string;
  status: string;
  user_id: string | null;
  auth_time: Epoch | null;
  interval_seconds: number | string;
  last_polled_at: Epoch | null;
  expires_at: Epoch;
}

const orNull = (value: Epoch | null): number | null => (value === null ? null : toNumber(value));

const list = (text: string): string[] => JSON.parse(text) as string[];

/** A client's row. */
export const clientRow = (client: OAuthClientRecord): ClientRow => ({
  client_id: client.clientId,
  name: client.name,
  secret_hash: client.secretHash,
  redirect_uris: JSON.stringify(client.redirectUris),
  grant_types: JSON.stringify(client.grantTypes),
  scopes: JSON.stringify(client.scopes),
  dynamic: client.dynamic ? 1 : 0,
  created_at: client.createdAt,
});

/** The client of a row. */
export const clientOf = (row: ClientRow): OAuthClientRecord => ({
  clientId: row.client_id,
  name: row.name,
  secretHash: row.secret_hash,
  redirectUris: list(row.redirect_uris),
  grantTypes: list(row.grant_types),
  scopes: list(row.scopes),
  dynamic: toBoolean(row.dynamic),
  createdAt: toNumber(row.created_at),
});

/** The columns `patch` changes (none for an empty patch). */
export function clientPatchColumns(patch: OAuthClientPatch): Partial<ClientRow> {
  const columns: Partial<ClientRow> = {};
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.secretHash !== undefined) columns.secret_hash = patch.secretHash;
  if (patch.redirectUris !== undefined) columns.redirect_uris = JSON.stringify(patch.redirectUris);
  if (patch.grantTypes !== undefined) columns.grant_types = JSON.stringify(patch.grantTypes);
  if (patch.scopes !== undefined) columns.scopes = JSON.stringify(patch.scopes);
  return columns;
}

/** A grant's row. */
export const grantRow = (grant: OAuthGrantRecord): GrantRow => ({
  grant_id: grant.grantId,
  client_id: grant.clientId,
  user_id: grant.userId,
  scopes: JSON.stringify(grant.scopes),
  resources: JSON.stringify(grant.resources),
  auth_time: grant.authTime,
  refresh_hash: grant.refreshHash,
  created_at: grant.createdAt,
  expires_at: grant.expiresAt,
  revoked_at: grant.revokedAt,
});

/** The grant of a row. */
export const grantOf = (row: GrantRow): OAuthGrantRecord => ({
  grantId: row.grant_id,
  clientId: row.client_id,
  userId: row.user_id,
  scopes: list(row.scopes),
  resources: list(row.resources),
  authTime: orNull(row.auth_time),
  refreshHash: row.refresh_hash,
  createdAt: toNumber(row.created_at),
  expiresAt: toNumber(row.expires_at),
  revokedAt: orNull(row.revoked_at),
});

/** A consent's row. */
export const consentRow = (consent: OAuthConsentRecord): ConsentRow => ({
  user_id: consent.userId,
  client_id: consent.clientId,
  scopes: JSON.stringify(consent.scopes),
  created_at: consent.createdAt,
  updated_at: consent.updatedAt,
});

/** The consent of a row. */
export const consentOf = (row: ConsentRow): OAuthConsentRecord => ({
  userId: row.user_id,
  clientId: row.client_id,
  scopes: list(row.scopes),
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
});

/** A device authorization's row. */
export const deviceRow = (device: OAuthDeviceRecord): DeviceRow => ({
  device_code_hash: device.deviceCodeHash,
  user_code_hash: device.userCodeHash,
  client_id: device.clientId,
  scopes: JSON.stringify(device.scopes),
  resources: JSON.stringify(device.resources),
  status: device.status,
  user_id: device.userId,
  auth_time: device.authTime,
  interval_seconds: device.intervalSeconds,
  last_polled_at: device.lastPolledAt,
  expires_at: device.expiresAt,
});

/** The device authorization of a row. */
export const deviceOf = (row: DeviceRow): OAuthDeviceRecord => ({
  deviceCodeHash: row.device_code_hash,
  userCodeHash: row.user_code_hash,
  clientId: row.client_id,
  scopes: list(row.scopes),
  resources: list(row.resources),
  status: row.status as OAuthDeviceRecord["status"],
  userId: row.user_id,
  authTime: orNull(row.auth_time),
  intervalSeconds: toNumber(row.interval_seconds),
  lastPolledAt: orNull(row.last_polled_at),
  expiresAt: toNumber(row.expires_at),
});
