import { Readable } from "node:stream";
import {
  AuthError,
  CooldownError,
  type ErrorCode,
  PasswordChangeRequiredError,
  ValidationError,
} from "../errors.js";
import type { Translator } from "../i18n/index.js";
import type { Logger } from "../ports/logger.js";
import { boundedMemo, createLru } from "../support/bounded-memo.js";
import { createFailureLog } from "./failure-log.js";
import { statusForCode } from "./status.js";
import type { HttpResponse } from "./types.js";

// Header objects are written out as literals: on Node 20's V8, a spread followed by more keys
// (`{ ...base, key }`) takes a slow path of about 2 µs per object (the bench profile's `jsonResponse`).
const NO_STORE = "no-store";
const JSON_TYPE = "application/json; charset=utf-8";

/**
 * The last timestamp written, by its millisecond: a busy server answers many in the same one, and
 * `toISOString` costs about a microsecond (the bench's 429 paths: 10–20 % more requests per CPU-second).
 */
const isoTimestamp = boundedMemo(1, (ms: number) => new Date(ms).toISOString());

export function jsonResponse(status: number, body: unknown, cookies: string[] = []): HttpResponse {
  const text = JSON.stringify(body);
  return jsonTextResponse(status, text, Buffer.byteLength(text), cookies);
}

/** A JSON answer whose text (of `bytes` UTF-8 bytes) is already written. */
function jsonTextResponse(status: number, text: string, bytes: number, cookies: string[]): HttpResponse {
  return {
    status,
    headers: { "cache-control": NO_STORE, "content-type": JSON_TYPE, "content-length": String(bytes) },
    cookies,
    body: text,
  };
}

/**
 * A 200 whose body streams: `chunks` as UTF-8 text, read as the client takes them, saved as
 * `filename` (`Content-Disposition: attachment`). No Content-Length (the size is not known yet).
 */
export function streamResponse(
  contentType: string,
  filename: string,
  chunks: AsyncIterable<string>,
): HttpResponse {
  return {
    status: 200,
    headers: {
      "cache-control": NO_STORE,
      "content-type": contentType,
      "content-disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "x-content-type-options": "nosniff",
    },
    cookies: [],
    body: null,
    stream: Readable.from(chunks, { objectMode: false }),
  };
}

/** A 302 to `location` (an absolute URL the core built from configured origins), no body. */
export function redirectResponse(location: string, cookies: string[] = []): HttpResponse {
  return {
    status: 302,
    headers: { "cache-control": NO_STORE, location, "content-length": "0" },
    cookies,
    body: null,
  };
}

/** Error bodies remembered per responder (an LRU): each answer differs from the last only by its timestamp. */
const MAX_REMEMBERED_BODIES = 1_000;
/** Only paths of a usual length are remembered (a 404's path is whatever the client sent). */
const MAX_REMEMBERED_PATH_LENGTH = 256;

/** An error body without its timestamp: `head` + ISO timestamp + `tail` is the JSON text. */
interface BodyParts {
  head: string;
  tail: string;
  /** UTF-8 bytes of head and tail (a timestamp is 24 ASCII characters). */
  bytes: number;
}

export interface ErrorResponder {
  /**
   * The error response of docs/errors.md: `{ status, code, message, path, timestamp }` (plus
   * `remaining` or `errors`), the `Auth-Error-Code` header, `Retry-After` on 429, no body on 304.
   * Anything that is not an `AuthError` becomes `INTERNAL_ERROR`; 500s log their cause, never
   * send it (once per cause and interval, with a count: `createFailureLog`).
   */
  (caught: unknown, context: { path: string; locale: string; now: number; cookies?: string[] }): HttpResponse;
  /** How many bodies are remembered now (at most 1,000, the least recently used dropped first). */
  rememberedBodies(): number;
}

/**
 * The error responses of one handler. A flood of one refusal (a 429 of a cooldown under attack)
 * is the same body each time but for its timestamp, so the translated message and the JSON around
 * the timestamp are built once per code (and so status), locale, path and `remaining`, in an LRU of
 * 1,000 (the bench's 429 paths: 10–15 % more requests per CPU-second). Bodies with field `errors` are built each time.
 */
export function createErrorResponder(translator: Translator, logger: Logger): ErrorResponder {
  const logFailure = createFailureLog(logger);
  const remembered = createLru<string, BodyParts>(MAX_REMEMBERED_BODIES);
  const bodyParts = (code: ErrorCode, locale: string, path: string, remaining?: number) => {
    const status = statusForCode(code);
    const message = translator.errorMessage(
      code,
      locale,
      remaining === undefined ? undefined : { remaining },
    );
    const head = `${JSON.stringify({ status, code, message, path }).slice(0, -1)},"timestamp":"`;
    const tail = remaining === undefined ? `"}` : `","remaining":${remaining}}`;
    return { head, tail, bytes: Buffer.byteLength(head) + Buffer.byteLength(tail) };
  };
  const rememberedParts = (code: ErrorCode, locale: string, path: string, remaining?: number) => {
    if (path.length > MAX_REMEMBERED_PATH_LENGTH) return bodyParts(code, locale, path, remaining);
    const key = `${code}\u0000${locale}\u0000${remaining}\u0000${path}`;
    let parts = remembered.get(key);
    if (parts === undefined) {
      parts = bodyParts(code, locale, path, remaining);
      remembered.set(key, parts);
    }
    return parts;
  };

  const respond = (
    caught: unknown,
    context: { path: string; locale: string; now: number; cookies?: string[] },
  ): HttpResponse => {
    const error = answerable(caught);
    const status = statusForCode(error.code);
    if (status >= 500) {
      const cause = error.cause ?? (caught instanceof AuthError ? undefined : caught);
      logFailure({ code: error.code, path: context.path, err: describe(cause) });
    }
    const cookies = context.cookies ?? [];
    if (status === 304) {
      const headers = { "cache-control": NO_STORE, "auth-error-code": error.code };
      return { status, headers, cookies, body: null };
    }
    const timestamp = isoTimestamp(context.now);
    let response: HttpResponse;
    if (error instanceof ValidationError) {
      const body = {
        status,
        code: error.code,
        message: translator.errorMessage(error.code, context.locale),
        path: context.path,
        timestamp,
        errors: error.issues.map((issue) => ({
          path: issue.path,
          code: issue.rule ?? "invalid",
          message: translator.fieldMessage(issue, context.locale),
        })),
      };
      response = jsonResponse(status, body, cookies);
    } else if (error instanceof PasswordChangeRequiredError) {
      const message = translator.errorMessage(error.code, context.locale);
      const { passwordChangeToken } = error;
      const body = { status, code: error.code, message, path: context.path, timestamp, passwordChangeToken };
      response = jsonResponse(status, body, cookies);
    } else {
      const remaining = remainingOf(error);
      const parts = rememberedParts(error.code, context.locale, context.path, remaining);
      const text = parts.head + timestamp + parts.tail;
      response = jsonTextResponse(status, text, parts.bytes + timestamp.length, cookies);
      if (remaining !== undefined) response.headers["retry-after"] = String(remaining);
    }
    response.headers["auth-error-code"] = error.code;
    // After a body that was too large, close the connection: the unread rest of it is not drained.
    if (status === 413) response.headers.connection = "close";
    return response;
  };
  return Object.assign(respond, { rememberedBodies: () => remembered.size });
}

/** What an error response is built from: the `AuthError`, or `INTERNAL_ERROR` for anything else. */
function answerable(caught: unknown): AuthError {
  return caught instanceof AuthError ? caught : new AuthError("INTERNAL_ERROR", { cause: caught });
}

/** The `remaining` seconds of a running cooldown's answer; undefined for any other error. */
function remainingOf(error: AuthError): number | undefined {
  return error instanceof CooldownError ? error.remainingSeconds : undefined;
}

function describe(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  const parts: string[] = [];
  // The error and the causes it carries (a store's "migration failed" and the database's reason), at most 3.
  for (let error: unknown = cause; error !== undefined && parts.length < 3; ) {
    if (!(error instanceof Error)) {
      parts.push(String(error));
      break;
    }
    parts.push(`${error.name}: ${error.message}`);
    error = error.cause;
  }
  return parts
    .join(" <- ")
    .replace(/[\r\n]+/g, " ")
    .slice(0, 500);
}
