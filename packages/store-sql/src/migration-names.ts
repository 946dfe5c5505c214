/**
 * Test support (not part of the package's exports): every migration's name, in the order
 * `migrate` applies them to an empty database. A new migration is added here once.
 */
export const EVERY_MIGRATION = [
  "0001_initial",
  "0002_identities",
  "0003_last_sign_in",
  "0004_token_claims",
  "0005_access_token_allowlist",
  "0006_session_rotated_at",
  "0007_session_remember_me",
  "0008_activity",
  "0010_passkeys",
  "0012_back_office",
  "0013_organizations",
  "0014_api_keys",
  "0015_audit_log",
  "0016_webhooks",
  "0017_signing_keys",
  "0018_oauth",
  "0019_sso",
  "0020_scim",
];

/** The migrations `migrate` applies to a database at `name`: those after it. */
export const migrationsAfter = (name: string): string[] => {
  const index = EVERY_MIGRATION.indexOf(name);
  if (index === -1) throw new Error(`no migration ${name}`);
  return EVERY_MIGRATION.slice(index + 1);
};
