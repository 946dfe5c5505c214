import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeEach, expect } from "vitest";
import type { ExchangeRecorder } from "./http-client.js";

/** Where an adapter's transcript is compared and recorded. */
export interface TranscriptOptions {
  /** The folder of the golden files, one `<area>.txt` per area. Default: this package's `transcripts/`. */
  goldenDir?: string;
  /** The folder this adapter's recordings go to. Default: `<goldenDir>/recorded/<adapter name>/`. */
  recordedDir?: string;
}

/** This package's `transcripts/` (from `src/` in the repository, from `dist/` once published). */
export const GOLDEN_TRANSCRIPTS_DIR = fileURLToPath(new URL("../transcripts/", import.meta.url));

const UPDATE_HINT = "pnpm --filter @portcullis/testing transcripts:update";

/** Replaces what differs between runs (tokens, ids, secrets, times) so transcripts can be compared. */
export function normalizeTranscript(text: string): string {
  // Device tokens before JWTs: a device token's random part can hold "eyJ", a JWT's first letters.
  return (
    text
      .replace(/d1\.[\w-]{22}\.[\w~-]*\.[\w-]{43}/g, "<device>")
      .replace(/(?<![\w-])eyJ[\w-]+\.[\w-]+\.[\w-]+/g, "<jwt>")
      .replace(/[\w-]{22}\.[\w-]{43}/g, "<refresh>")
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<time>")
      .replace(/"(id|sessionId)":"[\w-]{22}"/g, '"$1":"<id>"')
      .replace(/("nextCursor":"|cursor=)[\w-]+(?:(?::|%3A)[\w-]+)?/g, "$1<cursor>")
      .replace(/\/sessions\/[\w-]{22}/g, "/sessions/<id>")
      .replace(/token=[\w-]{43}/g, "token=<token>")
      .replace(/"(\w*Token)":"[\w-]{43}"/g, '"$1":"<token>"')
      .replace(/("secret":"|secret=)[A-Z2-7]{32}/g, "$1<secret>")
      .replace(/"[A-Z0-9]{5}-[A-Z0-9]{5}"/g, '"<recovery-code>"')
      .replace(/\/admin\/users\/[\w-]{22}/g, "/admin/users/<id>")
      .replace(/"(by|impersonatedBy)":"[\w-]{22}"/g, '"$1":"<id>"')
      .replace(
        /"(challenge|rawId|clientDataJSON|attestationObject|authenticatorData|signature|userHandle)":"[\w-]+"/g,
        '"$1":"<webauthn>"',
      )
      .replace(/("user":\{"id":")[\w-]+/g, "$1<user-handle>")
      .replace(/\/passkeys\/[\w-]{22}/g, "/passkeys/<id>")
      .replace(/passkey_challenge=[\w-]{43}/g, "passkey_challenge=<token>")
      .replace(/\/(organizations|members|invitations|api-keys)\/[\w-]{22}(?![\w-])/g, "/$1/<id>")
      .replace(/"key":"pc_[0-9A-Za-z]{49}"/g, '"key":"<api-key>"')
      .replace(/\?organizationId=[\w-]{22}(?![\w-])/g, "?organizationId=<id>")
      .replace(/"start":"pc_[0-9A-Za-z]{8}"/g, '"start":"pc_<start>"')
      .replace(/"(userId|organizationId|invitedBy|actor)":"[\w-]{22}"/g, '"$1":"<id>"')
      // Webhooks: endpoints' and deliveries' ids (32 hex), secrets, and the test receiver's port.
      .replace(/\/(webhooks|deliveries)\/[0-9a-f]{32}(?![\w-])/g, "/$1/<id>")
      .replace(/"id":"[0-9a-f]{32}"/g, '"id":"<id>"')
      .replace(/"secret":"whsec_[A-Za-z0-9+/=]+"/g, '"secret":"whsec_<secret>"')
      .replace(/http:\/\/127\.0\.0\.1:\d+\/hook(?![\w-])/g, "http://127.0.0.1:<port>/hook")
  );
}

/** A transcript file: one `=== <test name> ===` section per test, in order. */
export function parseTranscript(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  const flush = () => {
    if (name !== undefined) sections.set(name, lines.join("\n").replace(/\n+$/, ""));
  };
  for (const line of text.split("\n")) {
    const header = /^=== (.+) ===$/.exec(line);
    if (!header) {
      lines.push(line);
      continue;
    }
    flush();
    name = header[1];
    lines = [];
  }
  flush();
  return sections;
}

export function formatTranscript(sections: Map<string, string>): string {
  return `${[...sections].map(([name, text]) => `=== ${name} ===\n${text}`).join("\n\n")}\n`;
}

function readTranscript(file: string): Map<string, string> {
  try {
    return parseTranscript(readFileSync(file, "utf8"));
  } catch {
    return new Map();
  }
}

/** A file-name-safe form of an adapter's name ("express + redis" → "express-redis"). */
const slug = (name: string) => name.replace(/[^\w.-]+/g, "-").replace(/^-|-$/g, "");

/**
 * Records every test of one area (call inside its `describe`): each test's exchanges, normalized,
 * are compared with that test's section of the golden `<area>.txt` after the test, and the area's
 * recording is written to this adapter's own file for `transcripts:update`. Nothing here ever
 * writes a golden file. Undefined when `options` is false or absent: nothing is recorded.
 */
export function useTranscript(
  area: string,
  adapterName: string,
  options: boolean | TranscriptOptions | undefined,
): ExchangeRecorder | undefined {
  if (!options) return undefined;
  const goldenDir = (options !== true && options.goldenDir) || GOLDEN_TRANSCRIPTS_DIR;
  const recordedDir =
    (options !== true && options.recordedDir) || join(goldenDir, "recorded", slug(adapterName));
  const goldenFile = join(goldenDir, `${area}.txt`);
  const recorded = new Map<string, string>();
  let entries: string[] = [];

  beforeEach(() => {
    entries = [];
  });
  afterEach((context) => {
    const text = entries.map(normalizeTranscript).join("\n\n").replace(/\n+$/, "");
    const name = context.task.name;
    recorded.set(name, text);
    const golden = readTranscript(goldenFile).get(name);
    if (golden === undefined && text === "") return;
    if (golden === undefined)
      throw new Error(`no section "${name}" in ${goldenFile}: run \`${UPDATE_HINT}\``);
    expect(text, `the responses differ from ${goldenFile} (after a reviewed change: ${UPDATE_HINT})`).toBe(
      golden,
    );
  });
  afterAll(() => {
    if (recorded.size === 0) return;
    mkdirSync(recordedDir, { recursive: true });
    writeFileSync(join(recordedDir, `${area}.txt`), formatTranscript(recorded));
  });

  return () => {
    const slot = entries.length;
    const into = entries;
    into.push("");
    return (entry) => {
      into[slot] = entry;
    };
  };
}
