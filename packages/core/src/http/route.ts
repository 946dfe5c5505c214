import type { z } from "zod";
import type { ErrorCode } from "../errors.js";
import type { Principal, RequestContext } from "../model.js";
import type { CookieKind, TokenKind } from "./cookies.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/**
 * What a route needs from the caller: nothing, an access token, an access token plus a step-up
 * token (security settings), a 2FA token, a refresh token, or an access token if there is one.
 */
export type RouteAuth = "none" | "access" | "step-up" | "two-factor" | "refresh" | "optional";

/** What a route handler gets: the parsed request plus lazy helpers for body and credentials. */
export interface RouteInput {
  request: HttpRequest;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  meta: RequestContext;
  /**
   * The parsed JSON body (see `readJsonBody`), typed as the input of the use case it goes to:
   * the use case validates it (anything else is `VALIDATION_FAILED`).
   */
  body<T>(): Promise<T>;
  /** A token by the header/cookie rules of `allowHeaderAuthentication` and `preferHeaderAuthentication`. */
  token(kind: TokenKind): string | undefined;
  /** A cookie's value alone (e.g. the identity-provider state cookie), or undefined. */
  cookie(kind: CookieKind): string | undefined;
  /** The access token's principal; throws the 401 codes. */
  principal(): Promise<Principal>;
}

/** One route of docs/http-api.md, as data: the route table, the handler and the docs read it. */
export interface Route {
  method: "GET" | "POST" | "DELETE";
  /** Relative to the mount prefix; `:name` matches one path segment. */
  path: string;
  summary: string;
  auth: RouteAuth;
  /** The JSON body it reads: the same schema the use case parses. */
  body?: z.ZodType;
  /** The query parameters it reads (besides `locale`). */
  query?: readonly string[];
  /** Cookies cleared when the route fails with `code` (a dead refresh token clears the session's). */
  clearOnError?: { code: ErrorCode; cookies: readonly CookieKind[] };
  handle(input: RouteInput): Promise<HttpResponse>;
}
