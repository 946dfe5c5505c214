import { createHash } from "node:crypto";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import { createLru } from "../support/bounded-memo.js";

/**
 * What a range lookup said about a password: found in the breach corpus, not found, or unknown
 * (the range API was unreachable, too slow, or answered something unreadable).
 */
export type BreachVerdict = "found" | "not-found" | "unknown";

/** Checks passwords against a breach corpus by k-anonymity (see `createBreachedPasswords`). */
export interface BreachedPasswords {
  /** Whether a refusal follows an `unknown` verdict (`breachedPasswords.failClosed`). */
  readonly failClosed: boolean;
  /** The verdict for `password` (as the user typed it, NFKC-normalized); never throws. */
  check(password: string): Promise<BreachVerdict>;
}

export interface BreachedPasswordsConfig {
  /** The range API's base URL, without a trailing slash: `GET <rangeUrl>/<5 hex>`. */
  rangeUrl: string;
  timeoutMs: number;
  failClosed: boolean;
  /** How many ranges (5-hex prefixes) are kept; 0 keeps none. */
  cacheEntries: number;
  cacheTtlSeconds: number;
  clock: Clock;
  logger: Logger;
}

/** A cached range: the suffixes with a count above 0, each between newlines, and when it expires. */
interface CachedRange {
  suffixes: Promise<string>;
  expiresAt: number;
}

const SUFFIX_LINE = /^([0-9A-Fa-f]{35}):(\d+)$/;

/**
 * The most bytes of a range answer read: 1 MiB. A real one is about 30 to 40 KB (some 1,000
 * lines with padding); past the cap the answer is dropped unread and the check fails (`unknown`),
 * so a broken or hostile API cannot make each check read megabytes.
 */
export const MAX_RANGE_ANSWER_BYTES = 1024 * 1024;

/**
 * The k-anonymity range client: the password's SHA-1 (upper-case hex) is split into a 5-character
 * prefix, the only part that leaves the process (`GET <rangeUrl>/<prefix>` with `Add-Padding:
 * true`), and a 35-character suffix looked up in the answer's `SUFFIX:COUNT` lines (padding lines
 * have count 0 and never match). A range is remembered per prefix in an LRU of `cacheEntries` for
 * `cacheTtlSeconds`; concurrent checks of one prefix share one request. A request that fails,
 * takes longer than `timeoutMs` (headers and body) or answers more than `MAX_RANGE_ANSWER_BYTES`
 * is `unknown`, logged, and not cached.
 */
export function createBreachedPasswords(config: BreachedPasswordsConfig): BreachedPasswords {
  const cache = createLru<string, CachedRange>(config.cacheEntries);
  const range = (prefix: string): Promise<string> => {
    const now = config.clock.now();
    const cached = cache.get(prefix);
    if (cached && cached.expiresAt > now) return cached.suffixes;
    const suffixes = fetchRange(config, prefix);
    cache.set(prefix, { suffixes, expiresAt: now + config.cacheTtlSeconds * 1000 });
    suffixes.catch(() => {
      if (cache.get(prefix)?.suffixes === suffixes) cache.delete(prefix);
    });
    return suffixes;
  };
  return {
    failClosed: config.failClosed,
    async check(password) {
      const sha1 = createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();
      try {
        const suffixes = await range(sha1.slice(0, 5));
        return suffixes.includes(`\n${sha1.slice(5)}\n`) ? "found" : "not-found";
      } catch (error) {
        config.logger.warn(
          { event: "breached_passwords.unavailable", err: String(error), failClosed: config.failClosed },
          config.failClosed
            ? "the breached-password check failed: the password is refused (failClosed)"
            : "the breached-password check failed: the password is allowed",
        );
        return "unknown";
      }
    },
  };
}

/** One range request under the timeout: the answer's suffixes with a count above 0, between newlines. */
async function fetchRange(config: BreachedPasswordsConfig, prefix: string): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer within ${config.timeoutMs} ms`)),
    config.timeoutMs,
  );
  timer.unref?.();
  try {
    const response = await fetch(`${config.rangeUrl}/${prefix}`, {
      headers: { "Add-Padding": "true", Accept: "text/plain" },
      signal: controller.signal,
      redirect: "error",
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the range API answered ${response.status}`);
    }
    return parseRange(await readCapped(response, controller));
  } finally {
    clearTimeout(timer);
  }
}

/** The answer's text, or a throw (the request aborted) once it is longer than the cap. */
async function readCapped(response: Response, controller: AbortController): Promise<string> {
  const tooLong = () => {
    const error = new Error(`the range API's answer is longer than ${MAX_RANGE_ANSWER_BYTES} bytes`);
    controller.abort(error);
    return error;
  };
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > MAX_RANGE_ANSWER_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLong();
  }
  const reader = response.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > MAX_RANGE_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLong();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The suffixes of a range answer whose count is above 0, upper case, each between newlines. */
export function parseRange(text: string): string {
  let suffixes = "\n";
  let lines = 0;
  for (const line of text.split("\n")) {
    const match = SUFFIX_LINE.exec(line.trim());
    if (!match) continue;
    lines += 1;
    if (Number(match[2]) > 0) suffixes += `${(match[1] as string).toUpperCase()}\n`;
  }
  if (lines === 0 && text.trim() !== "") throw new Error("the range API's answer has no SUFFIX:COUNT line");
  return suffixes;
}
