/** The schema URN of every SCIM error body (RFC 7644 §3.12). */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";

/**
 * The `scimType` values of RFC 7644 §3.12 (table 9). All are answered with status 400, except
 * `uniqueness` (409) and `tooLarge` (413).
 */
export type ScimErrorType =
  | "invalidFilter"
  | "tooMany"
  | "uniqueness"
  | "mutability"
  | "invalidSyntax"
  | "invalidPath"
  | "noTarget"
  | "invalidValue"
  | "invalidVers"
  | "sensitive"
  | "tooLarge";

/**
 * A SCIM error as answered on the wire: `status` is the HTTP status as a string (the RFC's
 * shape), `scimType` is present only on the errors that have one.
 */
export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: ScimErrorType;
  detail: string;
}

/**
 * The outcome of a SCIM operation that may be refused: the value, or the error body to answer
 * (with `Number(error.status)` as the HTTP status).
 */
export type ScimResult<T> = { ok: true; value: T } | { ok: false; error: ScimErrorBody };

const STATUS_OF_TYPE: Partial<Record<ScimErrorType, string>> = { uniqueness: "409", tooLarge: "413" };

/** A SCIM error with a `scimType`; its status is 409 for `uniqueness`, 413 for `tooLarge`, else 400. */
export function scimError(scimType: ScimErrorType, detail: string): ScimErrorBody {
  return { schemas: [SCIM_ERROR_SCHEMA], status: STATUS_OF_TYPE[scimType] ?? "400", scimType, detail };
}

/**
 * A SCIM error without a `scimType`, for the statuses RFC 7644 §3.12 lists without one: 401,
 * 403, 404 (no such resource), 412, 500, 501 (e.g. bulk, sorting, changing a password).
 */
export function scimStatusError(status: 401 | 403 | 404 | 412 | 500 | 501, detail: string): ScimErrorBody {
  return { schemas: [SCIM_ERROR_SCHEMA], status: String(status), detail };
}

/** `{ ok: true, value }`. */
export function scimOk<T>(value: T): ScimResult<T> {
  return { ok: true, value };
}

/** `{ ok: false, error: scimError(scimType, detail) }`. */
export function scimFail<T = never>(scimType: ScimErrorType, detail: string): ScimResult<T> {
  return { ok: false, error: scimError(scimType, detail) };
}
