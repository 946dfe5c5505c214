import { AuthError, CooldownError, ValidationError } from "../errors.js";
import type { Translator } from "../i18n/index.js";
import type { Logger } from "../ports/logger.js";
import { statusForCode } from "./status.js";
import type { HttpResponse } from "./types.js";

// Header objects are written out as literals: on Node 20's V8, a spread followed by more keys
// (`{ ...base, key }`) takes a slow path of about 2 µs per object (the bench profile's `jsonResponse`).
const NO_STORE = "no-store";

export function jsonResponse(status: number, body: unknown, cookies: string[] = []): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      "cache-control": NO_STORE,
      "content-type": "application/json; charset=utf-8",
      "content-length": String(Buffer.byteLength(text)),
    },
    cookies,
    body: text,
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

/**
 * The error response of docs/errors.md: `{ status, code, message, path, timestamp }` (plus
 * `remaining` or `errors`), the `Auth-Error-Code` header, `Retry-After` on 429, no body on 304.
 * Anything that is not an `AuthError` becomes `INTERNAL_ERROR`; 500s log their cause, never send it.
 */
export function errorResponse(
  caught: unknown,
  context: {
    path: string;
    locale: string;
    now: number;
    translator: Translator;
    logger: Logger;
    cookies?: string[];
  },
): HttpResponse {
  const error = caught instanceof AuthError ? caught : new AuthError("INTERNAL_ERROR", { cause: caught });
  const status = statusForCode(error.code);
  if (status >= 500) {
    const cause = error.cause ?? (caught instanceof AuthError ? undefined : caught);
    context.logger.error(
      { event: "request.failed", code: error.code, path: context.path, err: describe(cause) },
      "request failed",
    );
  }
  if (status === 304) {
    const headers = { "cache-control": NO_STORE, "auth-error-code": error.code };
    return { status, headers, cookies: context.cookies ?? [], body: null };
  }

  const remaining = error instanceof CooldownError ? error.remainingSeconds : undefined;
  const body = {
    status,
    code: error.code,
    message: context.translator.errorMessage(
      error.code,
      context.locale,
      remaining === undefined ? undefined : { remaining },
    ),
    path: context.path,
    timestamp: isoTimestamp(context.now),
    remaining,
    errors:
      error instanceof ValidationError
        ? error.issues.map((issue) => ({
            path: issue.path,
            message: context.translator.fieldMessage(issue, context.locale),
          }))
        : undefined,
  };
  // JSON.stringify leaves out the undefined `remaining` and `errors`.
  const response = jsonResponse(status, body, context.cookies);
  response.headers["auth-error-code"] = error.code;
  if (remaining !== undefined) response.headers["retry-after"] = String(remaining);
  // After a body that was too large, close the connection: the unread rest of it is not drained.
  if (status === 413) response.headers.connection = "close";
  return response;
}

/** The last timestamp written, by its millisecond: a busy server answers many in the same one. */
let lastTimestamp = { ms: Number.NaN, iso: "" };

function isoTimestamp(ms: number): string {
  if (ms !== lastTimestamp.ms) lastTimestamp = { ms, iso: new Date(ms).toISOString() };
  return lastTimestamp.iso;
}

function describe(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`.replace(/[\r\n]+/g, " ").slice(0, 500);
  return String(cause).slice(0, 500);
}
