import type { SsoConnectionPatch, SsoConnectionRecord, SsoDomainRecord } from "@portcullis/core";
import { toBoolean, toNumber } from "./context.js";

/**
 * The rows of migration `0019_sso`: settings and lists are JSON, flags are 0 or 1 (PostgreSQL: a
 * boolean), times are milliseconds; bigints come back as strings from PostgreSQL.
 */
type Epoch = number | string;

/** A row of `<prefix>sso_connections`. */
export interface ConnectionRow {
  id: string;
  organization_id: string;
  type: string;
  saml: string | null;
  oidc: string | null;
  default_role: string;
  domains: string;
  sso_required: boolean | number;
  idp_initiated: boolean | number;
  scim_token_hash: string | null;
  created_at: Epoch;
  updated_at: Epoch;
}

/** A row of `<prefix>sso_domains`: `verified_domain` is `domain` once verified, else null. */
export interface DomainRow {
  organization_id: string;
  domain: string;
  verification_token: string;
  verified_at: Epoch | null;
  verified_domain: string | null;
  created_at: Epoch;
}

const json = (value: unknown): string | null => (value === null ? null : JSON.stringify(value));

const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** A connection's row. */
export const connectionRow = (connection: SsoConnectionRecord): ConnectionRow => ({
  id: connection.id,
  organization_id: connection.organizationId,
  type: connection.type,
  saml: json(connection.saml),
  oidc: json(connection.oidc),
  default_role: connection.defaultRole,
  domains: JSON.stringify(connection.domains),
  sso_required: connection.ssoRequired ? 1 : 0,
  idp_initiated: connection.idpInitiated ? 1 : 0,
  scim_token_hash: connection.scimTokenHash,
  created_at: connection.createdAt,
  updated_at: connection.updatedAt,
});

/** The connection of a row. */
export const connectionOf = (row: ConnectionRow): SsoConnectionRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  type: row.type as SsoConnectionRecord["type"],
  saml: parsed<SsoConnectionRecord["saml"]>(row.saml),
  oidc: parsed<SsoConnectionRecord["oidc"]>(row.oidc),
  defaultRole: row.default_role,
  domains: JSON.parse(row.domains) as string[],
  ssoRequired: toBoolean(row.sso_required),
  idpInitiated: toBoolean(row.idp_initiated),
  scimTokenHash: row.scim_token_hash,
  createdAt: toNumber(row.created_at),
  updatedAt: toNumber(row.updated_at),
});

/** The columns `patch` changes, and `updated_at`. */
export function connectionPatchColumns(
  patch: SsoConnectionPatch & { updatedAt: number },
): Partial<ConnectionRow> {
  const columns: Partial<ConnectionRow> = { updated_at: patch.updatedAt };
  if (patch.saml !== undefined) columns.saml = json(patch.saml);
  if (patch.oidc !== undefined) columns.oidc = json(patch.oidc);
  if (patch.defaultRole !== undefined) columns.default_role = patch.defaultRole;
  if (patch.domains !== undefined) columns.domains = JSON.stringify(patch.domains);
  if (patch.ssoRequired !== undefined) columns.sso_required = patch.ssoRequired ? 1 : 0;
  if (patch.idpInitiated !== undefined) columns.idp_initiated = patch.idpInitiated ? 1 : 0;
  if (patch.scimTokenHash !== undefined) columns.scim_token_hash = patch.scimTokenHash;
  return columns;
}

/** A claim's row. */
export const domainRow = (domain: SsoDomainRecord): DomainRow => ({
  organization_id: domain.organizationId,
  domain: domain.domain,
  verification_token: domain.verificationToken,
  verified_at: domain.verifiedAt,
  verified_domain: domain.verifiedAt === null ? null : domain.domain,
  created_at: domain.createdAt,
});

/** The claim of a row. */
export const domainOf = (row: DomainRow): SsoDomainRecord => ({
  organizationId: row.organization_id,
  domain: row.domain,
  verificationToken: row.verification_token,
  verifiedAt: row.verified_at === null ? null : toNumber(row.verified_at),
  createdAt: toNumber(row.created_at),
});
