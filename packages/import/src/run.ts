import type { TwoFactorImporter } from "@portcullis/core";
import { createSqlStores, type SqlStores, type SqlTables } from "@portcullis/store-sql";
import type { ImportAccountsOptions } from "./import-accounts.js";
import type { AnyKysely, Ledger } from "./ledger.js";
import type { Refusal } from "./prepare.js";
import type { ImportSummary } from "./summary.js";

/** What one run of `importAccounts` shares between its batches. */
export interface Run {
  options: ImportAccountsOptions;
  ledger: Ledger;
  /** False in a dry run against a target that never had an import: every source id is new. */
  ledgerExists: boolean;
  /**
   * What a dry run would have created in the batches before (addresses, `issuer subject` links,
   * `passkey <id>`, `id <source id>`): a real run finds them in the target instead.
   */
  seen: Set<string>;
  summary: ImportSummary;
  twoFactor: TwoFactorImporter | null;
  /** store-sql's table names under the target's prefix. */
  tables: SqlTables;
}

/** What became of one row: imported, updated (with the provider links each created), or skipped. */
export type Outcome = { done: "imported" | "updated"; identities: number } | Refusal;

/** Thrown inside an account's transaction to roll it back and skip the row. */
export class SkipRow extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.detail);
  }
}

/** store-sql's stores on `db` (the target, or a transaction on it), under the target's table prefix. */
export function storesOn(run: Run, db: AnyKysely): SqlStores {
  const { tablePrefix } = run.options.target;
  return createSqlStores({ db, ...(tablePrefix === undefined ? {} : { tablePrefix }) });
}

/**
 * A unique-key violation of any dialect (PostgreSQL's `23505`, MySQL's `ER_DUP_ENTRY` 1062,
 * SQLite's `UNIQUE constraint failed`, also as a primary key): a row that raced in, or a
 * duplicate a batch did not see coming.
 */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errno, message } = (error ?? {}) as { code?: unknown; errno?: unknown; message?: unknown };
  if (code === "23505" || code === "ER_DUP_ENTRY" || errno === 1062) return true;
  if (typeof code === "string" && /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(code)) return true;
  return typeof message === "string" && message.includes("UNIQUE constraint failed");
}

/** Why an address is taken: by an earlier row of this source (`duplicate_email`), or by an account that was there before. */
export function addressRefusal(email: string, earlierRow: boolean): Refusal {
  return earlierRow
    ? { skip: "duplicate_email", detail: `${email} came earlier in this source` }
    : { skip: "email_taken", detail: `${email} belongs to an account of the target` };
}

/** The refusal of a provider link that belongs to another account. */
export const identityTaken = (identity: { provider: string; subject: string }): Refusal => ({
  skip: "identity_taken",
  detail: `${identity.provider} ${identity.subject} is linked to another account`,
});

/** The refusal of a passkey whose credential id is another account's. */
export const passkeyTaken = (id: string): Refusal => ({
  skip: "passkey_taken",
  detail: `passkey ${id} is another account's`,
});
