import {
  AuthError,
  type ErrorCode,
  type HttpResponse,
  type RouteInput,
  type ScimStore,
} from "@portcullis/core";
import {
  SCIM_ERROR_SCHEMA,
  type ScimErrorBody,
  type ScimResult,
  scimError,
  scimStatusError,
} from "../scim/errors.js";
import { hashOf, type SsoContext, stored } from "./context.js";

/** A SCIM request's own context: the plugin's, the SCIM store, and the connection its token names. */
export interface ScimCall {
  ctx: SsoContext;
  scim: ScimStore;
  connectionId: string;
  /** `<appOrigin><basePath>/scim/v2`: the base of every `location`. */
  baseUrl: string;
  input: RouteInput;
}

/** A refusal in SCIM's shape, thrown by a SCIM route's steps and answered by `scimRoute`. */
export class ScimFailure extends Error {
  constructor(readonly body: ScimErrorBody) {
    super(body.detail);
  }
}

/** The value of `result`, or its error thrown as a `ScimFailure`. */
export function unwrap<T>(result: ScimResult<T>): T {
  if (!result.ok) throw new ScimFailure(result.error);
  return result.value;
}

/** Throws `scimError(scimType, detail)` (`uniqueness` 409, `tooLarge` 413, the rest 400). */
export function refuse(...args: Parameters<typeof scimError>): never {
  throw new ScimFailure(scimError(...args));
}

/** Throws the status error (404 for a resource the connection does not have). */
export function refuseStatus(...args: Parameters<typeof scimStatusError>): never {
  throw new ScimFailure(scimStatusError(...args));
}

/** A SCIM answer: `application/scim+json`, never cached; `body` null for 204. */
export function scimAnswer(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  const text = body === null ? null : JSON.stringify(body);
  return {
    status,
    headers: {
      ...(text === null ? {} : { "content-type": "application/scim+json; charset=utf-8" }),
      "cache-control": "no-store",
      "content-length": String(text === null ? 0 : Buffer.byteLength(text)),
      ...headers,
    },
    cookies: [],
    body: text,
  };
}

/**
 * The SCIM error of a core refusal: the body's own (415, 413, a JSON that does not parse), the
 * provisioning rules' (an address outside the verified domains, an unverified account of that
 * address), a resource that is gone (404), and a store that failed (500, nothing granted).
 */
function coreRefusal(error: AuthError): ScimErrorBody {
  const detail: Partial<Record<ErrorCode, () => ScimErrorBody>> = {
    VALIDATION_FAILED: () => scimError("invalidSyntax", "The body is not valid JSON."),
    PAYLOAD_TOO_LARGE: () => scimError("tooLarge", "The body is too large."),
    UNSUPPORTED_MEDIA_TYPE: () => ({
      schemas: [SCIM_ERROR_SCHEMA],
      status: "415",
      detail: "The body must be application/scim+json or application/json.",
    }),
    SSO_DOMAIN_NOT_VERIFIED: () =>
      scimError("invalidValue", "The user's address is not of a domain the organization has verified."),
    IDENTITY_PROVIDER_ACCOUNT_EXISTS: () =>
      scimError("uniqueness", "An account of this address exists, and its address is not verified."),
    USER_NOT_FOUND: () => scimStatusError(404, "The user's account no longer exists."),
    NOT_FOUND: () => scimStatusError(404, "The connection no longer exists."),
    ORGANIZATION_NOT_FOUND: () => scimStatusError(404, "The organization no longer exists."),
  };
  return detail[error.code]?.() ?? scimStatusError(500, "The server could not finish the request.");
}

/** The bearer token of the request's `Authorization` header, or undefined. */
function bearerOf(input: RouteInput): string | undefined {
  const value = input.request.headers.authorization;
  const header = Array.isArray(value) ? undefined : value;
  const match = header === undefined ? null : /^Bearer +([\x21-\x7e]{1,512}) *$/i.exec(header);
  return match?.[1];
}

/**
 * A SCIM route's handler: the connection whose token the request carries (401 in SCIM's shape
 * without one, for a wrong one, and for a connection of an organization that no longer exists),
 * then `handle`; a `ScimFailure` or a core refusal is answered in SCIM's shape. Without the `scim`
 * store nothing is served (404).
 */
export function scimRoute(handle: (call: ScimCall) => Promise<HttpResponse>) {
  return async (ctx: SsoContext, input: RouteInput): Promise<HttpResponse> => {
    try {
      const scim = ctx.scim;
      if (scim === undefined) return refuseStatus(404, "SCIM is not served here.");
      const token = bearerOf(input);
      const connection =
        token === undefined
          ? null
          : await stored(() => ctx.store.findSsoConnectionByScimTokenHash(hashOf(token)));
      if (connection === null) return refuseStatus(401, "The SCIM token is missing or not valid.");
      const baseUrl = `${ctx.base}/scim/v2`;
      return await handle({ ctx, scim, connectionId: connection.id, baseUrl, input });
    } catch (error) {
      const body =
        error instanceof ScimFailure ? error.body : error instanceof AuthError ? coreRefusal(error) : null;
      if (body === null) throw error;
      return scimAnswer(
        Number(body.status),
        body,
        Number(body.status) === 401 ? { "www-authenticate": "Bearer" } : {},
      );
    }
  };
}

/** How many times `withRetries` tries a write, and the most it waits between two tries (ms). */
const WRITE_TRIES = 40;
const MAX_BACKOFF_MS = 100;

/**
 * Runs `attempt` (a read, a change and its compare-and-set write) until its write finds the
 * version it read: up to 40 times, each retry after a random wait that grows (to 100 ms), so that
 * an identity provider's requests changing one resource at once (Entra ID adds a group's members
 * one request each) take turns instead of colliding again; then 409 in SCIM's shape.
 */
export async function withRetries<T>(attempt: () => Promise<T | "conflict">): Promise<T> {
  for (let tries = 0; tries < WRITE_TRIES; tries++) {
    const outcome = await attempt();
    if (outcome !== "conflict") return outcome;
    const ceiling = Math.min(MAX_BACKOFF_MS, 2 ** Math.min(tries, 7));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
  }
  throw new ScimFailure({
    schemas: [SCIM_ERROR_SCHEMA],
    status: "409",
    detail: "The resource kept changing while this request changed it; send it again.",
  });
}
