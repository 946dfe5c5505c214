import type { ErrorCode } from "@portcullis/core";

/** Codes of the client's own failures: no answer from the server, or an answer that is not the API's. */
export type ClientErrorCode = "NETWORK_FAILURE" | "UNEXPECTED_RESPONSE";

/** One field's problem in a `VALIDATION_FAILED` answer: the field's path and its localized message. */
export interface FieldError {
  path: string;
  message: string;
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
  /** Seconds to wait (`Retry-After`) before trying again, when the server said. */
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
    const { code, message, errors } = body as { code: ErrorCode; message?: unknown; errors?: unknown };
    const fields = Array.isArray(errors)
      ? errors.filter(
          (item): item is FieldError => typeof item?.path === "string" && typeof item?.message === "string",
        )
      : [];
    return new PortcullisError(code, typeof message === "string" ? message : code, {
      status: response.status,
      fields,
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
  }
  if (headerCode)
    return new PortcullisError(headerCode as ErrorCode, headerCode, { status: response.status });
  return new PortcullisError("UNEXPECTED_RESPONSE", `Unexpected answer: HTTP ${response.status}`, {
    status: response.status,
  });
}
