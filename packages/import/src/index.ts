// @portcullis/import: accounts from another auth system into Portcullis's SQL tables (README.md).

export { type CommandOutput, runCommand } from "./command.js";
export {
  type ImportAccountsOptions,
  type ImportProgress,
  type ImportTarget,
  importAccounts,
} from "./import-accounts.js";
export { type JsonlSourceOptions, jsonlSource } from "./jsonl-source.js";
export { type Ledger, sqlLedger } from "./ledger.js";
export { type OpenedTarget, openTarget, TargetError } from "./open-target.js";
export { BUILT_IN_ISSUERS } from "./prepare.js";
export type { ImportSource, SourceAccount, SourceIdentity, SourcePasskey, SourceRow } from "./source.js";
export { formatSummary, type ImportSummary, type SkippedRows, type SkipReason } from "./summary.js";
