import type { z } from "zod";
import type { AuthError, ErrorCode } from "../errors.js";
import type { Principal, RequestContext } from "../model.js";
import type { CookieKind } from "./cookies.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * What the HTTP layer gives a route's handler from the request's credentials, by the route's
 * `auth`. The layer resolves them before the handler runs and answers 401 itself when a required
 * one is missing or (for the access token) does not authenticate, so a handler cannot forget to.
 */
export interface Credentials {
  /** Public. */
  none: object;
  /**
   * The access token's principal if one comes and authenticates; never refused. Without a
   * principal, `refusal` is why (`AUTHENTICATION_REQUIRED` when no token came).
   */
  optional: { principal: Principal; refusal?: undefined } | { principal?: undefined; refusal: AuthError };
  /** The session's tokens as they come, unchecked: the sign-out ends whichever session they name. */
  "sign-out": { accessToken: string | undefined; refreshToken: string | undefined };
  /** The access token's principal (401 `AUTHENTICATION_REQUIRED`, `ACCESS_TOKEN_*` without). */
  access: { principal: Principal };
  /**
   * The principal and a step-up token (401 `STEP_UP_REQUIRED` without one); the use case checks
   * that the token is live and bound to this user and session.
   */
  "step-up": { principal: Principal; stepUpToken: string };
  /** A 2FA token (401 `TWO_FACTOR_TOKEN_INVALID` without one); the use case checks it. */
  "two-factor": { twoFactorToken: string };
  /** The principal and a 2FA token from a step-up of this session (the second factor of a step-up). */
  "access-and-two-factor": { principal: Principal; twoFactorToken: string };
  /**
   * A 2FA token when one comes, judged on its own (an access token beside it that does not
   * authenticate changes nothing; a live one's principal comes too, for when the 2FA token is
   * refused); else the access token's principal (or its 401).
   */
  "access-or-two-factor":
    | { principal: Principal; twoFactorToken?: string }
    | { principal?: undefined; twoFactorToken: string };
  /** A refresh token (401 `REFRESH_TOKEN_INVALID` without one); the use case checks it. */
  refresh: { refreshToken: string };
  /**
   * The back office: the access token's principal and the step-up token if one came. The use case
   * asks `admin.authorize` first (403 `ADMIN_REQUIRED`), then checks the step-up token (401
   * `STEP_UP_REQUIRED`), so a non-admin learns nothing more with a step-up than without.
   */
  admin: { principal: Principal; stepUpToken: string | undefined };
}

/** What a route needs from the caller: a key of `Credentials` (the OpenAPI document's `x-portcullis-auth`). */
export type RouteAuth = keyof Credentials;

/** What every route handler gets: the parsed request, plus the body and cookies on demand. */
export interface RequestInput {
  request: HttpRequest;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  meta: RequestContext;
  /**
   * The parsed JSON body (see `readJsonBody`), typed as the input of the use case it goes to:
   * the use case validates it (anything else is `VALIDATION_FAILED`).
   */
  body<T>(): Promise<T>;
  /**
   * The `application/x-www-form-urlencoded` body (the OAuth token endpoint's), within the body
   * limit: empty when none came; 415 for another content type, 413 past the limit.
   */
  form(): Promise<URLSearchParams>;
  /** A cookie's value alone (e.g. the identity-provider state cookie), or undefined. */
  cookie(kind: CookieKind): string | undefined;
  /** `meta` with the browser's device token: the cookie, or `X-Device-Token` with header authentication. */
  withDevice(): RequestContext;
  /** Whether the access token the request is judged by came in its cookie (a browser's session), not a header. */
  accessByCookie(): boolean;
}

/** What the handler of a route with `auth: A` gets: the request and the credentials of `A`. */
export type RouteInput<A extends RouteAuth = RouteAuth> = RequestInput & Credentials[A];

/** A route's data: what the route table, the handler, the docs and the OpenAPI document read. */
export interface RouteSpec<A extends RouteAuth = RouteAuth> {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Relative to the mount prefix; `:name` matches one path segment. */
  path: string;
  summary: string;
  auth: A;
  /** The JSON body it reads: the same schema the use case parses. */
  body?: z.ZodType;
  /** The query parameters it reads (besides `locale`). */
  query?: readonly string[];
  /**
   * The error codes its use case can answer with, read from `USE_CASE_ERRORS` (use-case-errors.ts,
   * `errorsOf`), where each use case declares them once; a route that runs two joins both, and a
   * code the route's own code adds (a query it parses) is listed beside them. The HTTP layer's own
   * (the credentials of `auth`, the body's 400/413/415, CSRF on a POST or DELETE,
   * `INTERNAL_ERROR`) are added to them in the OpenAPI document (openapi.ts).
   */
  errors: readonly ErrorCode[];
  /** Content types its success may stream instead of JSON (an export; OpenAPI lists them). */
  streams?: readonly string[];
  /** The status of its success: 200 unless it creates something (201) or only queues work (202). */
  successStatus?: 200 | 201 | 202;
  /**
   * Called from any origin by clients that hold no cookie of ours (the OAuth provider's token,
   * revocation, introspection, userinfo, JWKS and metadata routes; `auth: "none"` only): no CSRF
   * check, and its answers and a preflight `OPTIONS` allow every origin, without credentials.
   */
  crossOrigin?: boolean;
  /**
   * The route's OpenAPI operation, written by the route itself, for routes whose answers do not
   * follow docs/errors.md (the OAuth provider's follow RFC 6749): used as is, beside `summary`.
   */
  operation?: Readonly<Record<string, unknown>>;
  /** Cookies cleared when the route fails with one of `codes` (a dead refresh token or session clears the session's). */
  clearOnError?: { codes: readonly ErrorCode[]; cookies: readonly CookieKind[] };
}

/** One route of docs/http-api.md with `auth: A`: its data and what it does. */
export interface RouteOf<A extends RouteAuth> extends RouteSpec<A> {
  /** The response; a refusal is thrown as its `AuthError` (a running cooldown as its `CooldownError`). */
  handle(input: RouteInput<A>): Promise<HttpResponse>;
}

/** One route of any kind of `auth`: the route table is a list of these. */
export type Route = { [A in RouteAuth]: RouteOf<A> }[RouteAuth];
