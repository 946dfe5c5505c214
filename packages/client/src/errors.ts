import type { ErrorCode } from "./api-types.js";

/** Codes of the client's own failures: no answer from the server, or an answer that is not the API's. */
export type ClientErrorCode = "NETWORK_FAILURE" | "UNEXPECTED_RESPONSE";

/**
 * One field's problem in a `VALIDATION_FAILED` answer: the field's path, its localized message
 * ("" when the server gave none) and the rule's code (`required`, `too_short`, …) when it gave one.
 */
export interface FieldError {
  path: string;
  message: string;
  code?: string;
}

/**
 * A refused call: `code` is the server's error code (docs/errors.md) or one of the client's own,
 * `message` the server's localized message, `fields` the per-field problems of a validation error.
 */
export class PortcullisError extends Error {
  override readonly name = "PortcullisError";
  readonly code: ErrorCode | ClientErrorCode;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  readonly fields: readonly FieldError[];
  /** Seconds to wait (`Retry-After`, or the body's `remaining`) before trying again, when the server said. */
  readonly retryAfter: number | undefined;

  constructor(
    code: ErrorCode | ClientErrorCode,
    message: string,
    details: { status?: number; fields?: readonly FieldError[]; retryAfter?: number; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status ?? 0;
    this.fields = details.fields ?? [];
    this.retryAfter = details.retryAfter;
  }

  /** The message of `path`'s field error, if the server reported one. */
  fieldMessage(path: string): string | undefined {
    return this.fields.find((field) => field.path === path)?.message;
  }
}

/** True for a `PortcullisError`, optionally with one of `codes`. */
export function isPortcullisError(
  error: unknown,
  ...codes: (ErrorCode | ClientErrorCode)[]
): error is PortcullisError {
  return error instanceof PortcullisError && (codes.length === 0 || codes.includes(error.code));
}

/** The error of a refused answer: the API's error body, or `UNEXPECTED_RESPONSE` for anything else. */
export async function errorFromResponse(response: Response): Promise<PortcullisError> {
  const retry = Number(response.headers.get("retry-after"));
  const retryAfter = Number.isFinite(retry) && retry > 0 ? retry : undefined;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const headerCode = response.headers.get("auth-error-code");
  if (typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string") {
    const { code, message, errors, remaining } = body as {
      code: ErrorCode;
      message?: unknown;
      errors?: unknown;
      remaining?: unknown;
    };
    const wait = retryAfter ?? (typeof remaining === "number" && remaining > 0 ? remaining : undefined);
    return new PortcullisError(code, typeof message === "string" ? message : code, {
      status: response.status,
      fields: fieldsOf(errors),
      ...(wait === undefined ? {} : { retryAfter: wait }),
    });
  }
  if (headerCode)
    return new PortcullisError(headerCode as ErrorCode, headerCode, { status: response.status });
  return new PortcullisError("UNEXPECTED_RESPONSE", `Unexpected answer: HTTP ${response.status}`, {
    status: response.status,
  });
}

/** The field errors of an error body's `errors` (entries without a string `path` are left out). */
function fieldsOf(errors: unknown): FieldError[] {
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((item) => typeof item?.path === "string")
    .map((item: { path: string; message?: unknown; code?: unknown }) => ({
      path: item.path,
      message: typeof item.message === "string" ? item.message : "",
      ...(typeof item.code === "string" ? { code: item.code } : {}),
    }));
}
