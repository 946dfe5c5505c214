import type { UserRecord } from "@portcullis/core";
import type { SqlTables } from "@portcullis/store-sql";
import type { AnyKysely } from "./ledger.js";
import type { PreparedIdentity } from "./prepare.js";

/*
 * A batch's users and links as rows of store-sql's tables, for one multi-row INSERT each: what
 * `UserStore.create` and `IdentityStore.link` write for the same records, column for column (a
 * test compares both), without the store's `on conflict do nothing`, so that a key taken fails
 * the batch's transaction and the batch is written again through the stores, one account at a time.
 */

/**
 * Rows one INSERT writes at most: 500 users of 11 columns are 5,500 parameters, far below each
 * dialect's limit (SQLite 32,766, PostgreSQL and MySQL 65,535) whatever `batchSize` is.
 */
export const ROWS_PER_STATEMENT = 500;

/** `items` cut into lists of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size = ROWS_PER_STATEMENT): T[][] {
  const cut: T[][] = [];
  for (let start = 0; start < items.length; start += size) cut.push(items.slice(start, start + size));
  return cut;
}

/** The row `UserStore.create` writes for a new user (the columns of later migrations stay null). */
export const userRow = (user: UserRecord) => ({
  id: user.id,
  email: user.email,
  email_verified: user.emailVerified ? 1 : 0,
  name: user.name,
  password_hash: user.passwordHash,
  identity_providers: JSON.stringify(user.identityProviders),
  two_factor_methods: JSON.stringify(user.twoFactor.methods),
  two_factor_preferred_method: user.twoFactor.preferredMethod,
  totp_secret_encrypted: user.twoFactor.totpSecretEncrypted,
  recovery_code_hashes: JSON.stringify(user.twoFactor.recoveryCodeHashes),
  created_at: user.createdAt,
});

/** The row `IdentityStore.link` writes for a provider link of a new account. */
export const identityRow = (identity: PreparedIdentity, user: UserRecord) => ({
  issuer: identity.issuer,
  subject: identity.subject,
  user_id: user.id,
  provider: identity.provider,
  email: null,
  created_at: user.createdAt,
});

/** Inserts the users, then their links, each in one statement on `trx`; a key taken rejects (a unique violation). */
export async function insertUsersAndLinks(
  trx: AnyKysely,
  tables: SqlTables,
  accounts: readonly { user: UserRecord; identities: readonly PreparedIdentity[] }[],
): Promise<void> {
  if (accounts.length === 0) return;
  await trx
    .insertInto(tables.users)
    .values(accounts.map(({ user }) => userRow(user)))
    .execute();
  const links = accounts.flatMap(({ user, identities }) =>
    identities.map((identity) => identityRow(identity, user)),
  );
  if (links.length > 0) await trx.insertInto(tables.identities).values(links).execute();
}
