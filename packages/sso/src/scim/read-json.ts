import { type ScimErrorBody, type ScimErrorType, type ScimResult, scimError } from "./errors.js";

/** A refusal thrown inside this module and turned into a `ScimResult` by `guard` at its edge. */
export class ScimRefusal extends Error {
  constructor(readonly error: ScimErrorBody) {
    super(error.detail);
  }
}

/** Throws the SCIM error `scimType` with `detail`. */
export function refuse(scimType: ScimErrorType, detail: string): never {
  throw new ScimRefusal(scimError(scimType, detail));
}

/** Runs `work`, answering a refusal it throws as `{ ok: false }`; other errors go on. */
export function guard<T>(work: () => T): ScimResult<T> {
  try {
    return { ok: true, value: work() };
  } catch (error) {
    if (error instanceof ScimRefusal) return { ok: false, error: error.error };
    throw error;
  }
}

/** A plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The attribute `name` of `object`, its name compared without case (RFC 7643 §2.1). */
export function attributeOf(object: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((candidate) => candidate.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

/**
 * A string attribute that may be unassigned: null when absent, null or "" (SCIM treats them
 * alike); refused as `invalidValue` when it is not a string or longer than `maxLength`.
 */
export function optionalText(
  object: Record<string, unknown>,
  name: string,
  maxLength: number,
): string | null {
  const value = attributeOf(object, name);
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") refuse("invalidValue", `${name} must be a string.`);
  if (value.length > maxLength) refuse("invalidValue", `${name} is longer than ${maxLength} characters.`);
  return value;
}

/** A required string attribute, trimmed: refused as `invalidValue` when absent, empty or too long. */
export function requiredText(object: Record<string, unknown>, name: string, maxLength: number): string {
  const value = optionalText(object, name, maxLength)?.trim();
  if (!value) refuse("invalidValue", `${name} is required.`);
  return value;
}

/**
 * A boolean attribute, also given as the strings "true" / "false" in any case (Microsoft Entra
 * ID sends "True" and "False"): null when absent or null, `invalidValue` for anything else.
 */
export function lenientBoolean(value: unknown, name: string): boolean | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const lower = value.trim().toLowerCase();
    if (lower === "true") return true;
    if (lower === "false") return false;
  }
  return refuse("invalidValue", `${name} must be a boolean.`);
}

/** Refuses (`invalidSyntax`) a body whose `schemas` does not list `schema`. */
export function requireSchema(body: Record<string, unknown>, schema: string): void {
  const schemas = attributeOf(body, "schemas");
  const listed =
    Array.isArray(schemas) &&
    schemas.some((item) => typeof item === "string" && item.toLowerCase() === schema.toLowerCase());
  if (!listed) refuse("invalidSyntax", `schemas must list ${schema}.`);
}
