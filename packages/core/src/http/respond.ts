import { AuthError, CooldownError, ValidationError } from "../errors.js";
import type { Translator } from "../i18n/index.js";
import type { Logger } from "../ports/logger.js";
import { statusForCode } from "./status.js";
import type { HttpResponse } from "./types.js";

const BASE_HEADERS = { "cache-control": "no-store" } as const;

export function jsonResponse(status: number, body: unknown, cookies: string[] = []): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      ...BASE_HEADERS,
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
    headers: { ...BASE_HEADERS, location, "content-length": "0" },
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
  const headers: Record<string, string> = { "auth-error-code": error.code };
  // After a body that was too large, close the connection: the unread rest of it is not drained.
  if (status === 413) headers.connection = "close";
  if (status === 304)
    return { status, headers: { ...BASE_HEADERS, ...headers }, cookies: context.cookies ?? [], body: null };

  const remaining = error instanceof CooldownError ? error.remainingSeconds : undefined;
  const body: Record<string, unknown> = {
    status,
    code: error.code,
    message: context.translator.errorMessage(error.code, context.locale, { remaining }),
    path: context.path,
    timestamp: new Date(context.now).toISOString(),
  };
  if (remaining !== undefined) {
    body.remaining = remaining;
    headers["retry-after"] = String(remaining);
  }
  if (error instanceof ValidationError) body.errors = error.issues;
  const response = jsonResponse(status, body, context.cookies);
  Object.assign(response.headers, headers);
  return response;
}

function describe(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`.replace(/[\r\n]+/g, " ").slice(0, 500);
  return String(cause).slice(0, 500);
}
