/**
 * Why a source row was not imported. `already_imported`: the ledger has this source id and
 * the row is as it was imported (a re-run, or a resumed one), or its account was deleted since
 * (never created again); `duplicate_email`: an earlier row of this source took the address after
 * normalization; `email_taken`: an account of the target that this source did not create has
 * it; `identity_taken`: one of its provider links belongs to another account;
 * `two_factor_unreadable`: the account has TOTP that the source could not decrypt (no or a wrong
 * source secret) or the import has no two-factor key to seal it with (it is never imported
 * without its 2FA); `invalid_two_factor`: its TOTP secret is not a usable base32 secret;
 * `passkey_taken`: one of its passkeys' credential ids is another account's.
 */
export type SkipReason =
  | "invalid_json"
  | "invalid_row"
  | "invalid_email"
  | "unverifiable_hash"
  | "unknown_provider"
  | "already_imported"
  | "duplicate_email"
  | "email_taken"
  | "identity_taken"
  | "two_factor_unreadable"
  | "invalid_two_factor"
  | "passkey_taken";

/** The skipped rows of one reason: how many, and the line numbers of the first ones. */
export interface SkippedRows {
  count: number;
  /** The first `firstLines` (an option of `importAccounts`, default 20) line numbers, in source order. */
  lines: number[];
}

/** What a run did (or, with `dryRun`, would do). */
export interface ImportSummary {
  /** Rows read from the source, good and bad. */
  rows: number;
  /** Accounts created (with `dryRun`: that would be created). */
  imported: number;
  /**
   * Accounts imported before whose source row changed since, brought up to date (with `dryRun`:
   * that would be): address, name, verification, a password hash the account still has from the
   * import, new provider links and passkeys.
   */
  updated: number;
  /** Provider links created, with new accounts and by updates. */
  identities: number;
  /** Rows not imported, by reason. */
  skipped: Partial<Record<SkipReason, SkippedRows>>;
  dryRun: boolean;
}

/** A summary being filled in while the rows stream by. */
export function emptySummary(dryRun: boolean): ImportSummary {
  return { rows: 0, imported: 0, updated: 0, identities: 0, skipped: {}, dryRun };
}

/** Counts one skipped row under its reason, keeping its line number while fewer than `firstLines` are kept. */
export function recordSkip(
  summary: ImportSummary,
  reason: SkipReason,
  line: number,
  firstLines: number,
): void {
  const entry = summary.skipped[reason] ?? { count: 0, lines: [] };
  entry.count += 1;
  if (entry.lines.length < firstLines) entry.lines.push(line);
  summary.skipped[reason] = entry;
}

/** How many rows were skipped, whatever the reason. */
export const skippedCount = (summary: ImportSummary): number =>
  Object.values(summary.skipped).reduce((sum, entry) => sum + (entry?.count ?? 0), 0);

/**
 * The summary as plain lines for a terminal or a log: totals first (the updated accounts only
 * when there are some), then one line per reason.
 */
export function formatSummary(summary: ImportSummary): string {
  const [imported, updated] = summary.dryRun ? ["would import", "would update"] : ["imported", "updated"];
  const updates = summary.updated > 0 ? `, ${updated} ${summary.updated}` : "";
  const lines = [
    `${summary.dryRun ? "dry run: " : ""}${summary.rows} rows read, ${imported} ${summary.imported} accounts (${summary.identities} provider links)${updates}, skipped ${skippedCount(summary)}`,
  ];
  for (const [reason, entry] of Object.entries(summary.skipped)) {
    if (!entry) continue;
    const more = entry.count > entry.lines.length ? ", …" : "";
    lines.push(`  skipped ${reason}: ${entry.count} (lines ${entry.lines.join(", ")}${more})`);
  }
  return `${lines.join("\n")}\n`;
}
