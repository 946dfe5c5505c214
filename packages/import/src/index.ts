// @portcullis/import: accounts from another auth system into Portcullis's SQL tables (README.md).

export { type CommandOutput, runCommand } from "./command.js";
export {
  type ImportAccountsOptions,
  type ImportProgress,
  type ImportTarget,
  importAccounts,
} from "./import-accounts.js";
export { type JsonlSourceOptions, jsonlSource } from "./jsonl-source.js";
export { type Ledger, type LedgerEntry, type LedgerRecord, sqlLedger } from "./ledger.js";
export {
  type OpenedSource,
  openSource,
  SOURCE_KINDS,
  type SourceArguments,
  SourceError,
  type SourceKind,
} from "./open-source.js";
export { type OpenedTarget, openTarget, TargetError } from "./open-target.js";
export { BUILT_IN_ISSUERS } from "./prepare.js";
export type { ImportSource, SourceAccount, SourceIdentity, SourcePasskey, SourceRow } from "./source.js";
export {
  AUTHJS_TABLE_NAMINGS,
  AuthjsSourceError,
  type AuthjsSourceOptions,
  type AuthjsTables,
  authjsSource,
  findAuthjsTables,
} from "./sources/authjs.js";
export {
  type BetterAuthSourceOptions,
  type BetterAuthTables,
  betterAuthSource,
} from "./sources/better-auth.js";
export { betterAuthSecretsFromEnv } from "./sources/better-auth-crypto.js";
export {
  parseSupabaseDecryptionKeys,
  type SupabaseSourceOptions,
  supabaseSource,
} from "./sources/supabase.js";
export { formatSummary, type ImportSummary, type SkippedRows, type SkipReason } from "./summary.js";
