import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { createInterface } from "node:readline";
import type { ImportSource, SourceAccount, SourceIdentity, SourcePasskey, SourceRow } from "./source.js";

/** Options of `jsonlSource`. */
export interface JsonlSourceOptions {
  /** How this file is told apart from other sources in the import ledger; default its file name. */
  name?: string;
}

/**
 * A JSON-lines file as an import source (docs: packages/import/README.md): one account a line,
 * `{ id?, email, emailVerified?, name?, passwordHash?, identities?: [{ provider, subject, issuer? }],
 * totpSecret?, recoveryCodes?, passkeys?: [{ id, publicKey, counter, transports?, backupEligible?,
 * backedUp?, name?, createdAt? }] }` (the TOTP secret in base32, recovery codes in the clear),
 * read line by line from a stream, so a file of any size takes flat memory. A line that is not
 * JSON, or not such an object, is a skipped row with its line number and why; it never stops
 * the run. Blank lines are ignored.
 */
export function jsonlSource(path: string, options: JsonlSourceOptions = {}): ImportSource {
  return {
    name: `jsonl:${options.name ?? basename(path)}`,
    count: () => countRows(path),
    async *rows() {
      const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
      let line = 0;
      for await (const text of lines) {
        line += 1;
        if (text.trim() === "") continue;
        yield parseLine(text, line);
      }
    },
  };
}

/** One line of the file as a row: its account, or why it is skipped. */
export function parseLine(text: string, line: number): SourceRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, skip: "invalid_json", detail: (error as Error).message };
  }
  const problem = accountProblem(value);
  if (problem) return { line, skip: "invalid_row", detail: problem };
  return { line, account: toAccount(value as Record<string, unknown>) };
}

const isText = (value: unknown): value is string => typeof value === "string" && value !== "";
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const textOrNull = (value: unknown) => value === null || typeof value === "string";

/** What is wrong with a parsed line as an account, or null when nothing is. */
function accountProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "not a JSON object";
  const row = value as Record<string, unknown>;
  if (!isText(row.email)) return "no email";
  if (!optional(row.id, (id) => isText(id) || Number.isSafeInteger(id)))
    return "id is not a string or an integer";
  if (!optional(row.emailVerified, (v) => typeof v === "boolean")) return "emailVerified is not a boolean";
  if (!optional(row.name, textOrNull)) return "name is not a string";
  if (!optional(row.passwordHash, textOrNull)) return "passwordHash is not a string";
  if (!optional(row.identities, (list) => Array.isArray(list) && list.every(isIdentity)))
    return "identities is not a list of { provider, subject }";
  if (!optional(row.totpSecret, textOrNull)) return "totpSecret is not a string";
  if (!optional(row.recoveryCodes, (list) => Array.isArray(list) && list.every(isText)))
    return "recoveryCodes is not a list of strings";
  if (!optional(row.passkeys, (list) => Array.isArray(list) && list.every(isPasskey)))
    return "passkeys is not a list of { id, publicKey, counter }";
  return null;
}

function isIdentity(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { provider, subject, issuer } = value as Record<string, unknown>;
  return isText(provider) && (isText(subject) || Number.isSafeInteger(subject)) && optional(issuer, isText);
}

function isPasskey(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const { id, publicKey, counter, transports, name, createdAt } = value as Record<string, unknown>;
  return (
    isText(id) &&
    isText(publicKey) &&
    Number.isSafeInteger(counter) &&
    optional(transports, (list) => Array.isArray(list) && list.every(isText)) &&
    optional(name, textOrNull) &&
    optional(createdAt, Number.isSafeInteger)
  );
}

function toAccount(row: Record<string, unknown>): SourceAccount {
  const identities = ((row.identities as Record<string, unknown>[] | undefined) ?? []).map(
    ({ provider, subject, issuer }): SourceIdentity => ({
      provider: provider as string,
      subject: String(subject),
      ...(issuer === undefined ? {} : { issuer: issuer as string }),
    }),
  );
  return {
    ...(row.id === undefined ? {} : { id: String(row.id) }),
    email: row.email as string,
    emailVerified: row.emailVerified === true,
    name: (row.name as string | null | undefined) ?? null,
    passwordHash: (row.passwordHash as string | null | undefined) ?? null,
    identities,
    ...(isText(row.totpSecret)
      ? { totp: { secret: row.totpSecret, recoveryCodes: (row.recoveryCodes as string[] | undefined) ?? [] } }
      : {}),
    ...(row.passkeys === undefined ? {} : { passkeys: row.passkeys as SourcePasskey[] }),
  };
}

/** The rows of a JSON-lines file as the source yields them: its lines with something other than white space (one read of the file, without parsing). */
async function countRows(path: string): Promise<number> {
  let rows = 0;
  let filled = false;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    let at = 0;
    while (at < chunk.length) {
      const end = chunk.indexOf(0x0a, at);
      const stop = end === -1 ? chunk.length : end;
      for (let i = at; i < stop && !filled; i += 1) filled = !WHITE_SPACE.has(chunk[i] ?? 0x20);
      if (end === -1) break;
      if (filled) rows += 1;
      filled = false;
      at = end + 1;
    }
  }
  return filled ? rows + 1 : rows;
}

/** Space, tab, carriage return, vertical tab, form feed. */
const WHITE_SPACE = new Set([0x20, 0x09, 0x0d, 0x0b, 0x0c]);
