import * as core from "@portcullis/core";
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireAuth` and `requirePermission`: the authenticated user and session. */
      auth?: core.Principal;
      /** Set by `requirePermission`: the active organization and the member's role and permissions. */
      organization?: core.OrganizationAccess;
      /** Set by `requireOAuth`: what the OAuth provider's access token says. */
      oauth?: core.OAuthAccessToken;
    }
  }
}

/** The core's request: the full URL (a router strips its mount path from `req.url`) and the body. */
const toHttpRequest = (req: Request) =>
  core.fromNodeRequest(req, { url: req.originalUrl, ...core.nodeRequestBody(req) });

/**
 * An Express router that serves every Portcullis route under `auth.options.basePath`; any other
 * path goes to `next()`. Mount it at the top level, before any body parser: it reads the raw body
 * itself (when a parser ran first, its result is used and the content type still checked).
 * @example
 * ```ts
 * const app = express();
 * app.use(createAuthRouter(auth));
 * app.listen(3000);
 * ```
 */
export function createAuthRouter(auth: core.Auth): Router {
  const handler = core.httpHandlerFor(auth); // Express 5 passes a rejection on to `next(error)`
  return Router().use(handler.basePath, async (req: Request, res: Response, next: NextFunction) => {
    const response = await handler.handle(toHttpRequest(req));
    return response ? core.writeNodeResponse(res, response) : next();
  });
}

/** Sets a login's cookies, for a session the host started with `auth.sessions.create` itself. */
export function setSessionCookies(auth: core.Auth, res: Response, tokens: core.SessionCookieTokens): void {
  res.append("set-cookie", core.httpHandlerFor(auth).sessionCookies(tokens));
}

/** A request after `requireAuth`: `auth` is set (with Express's own generics for params, body and query). */
export type AuthenticatedRequest<
  P = Request["params"],
  ResBody = unknown,
  ReqBody = unknown,
  ReqQuery = unknown,
> = Request<P, ResBody, ReqBody, ReqQuery> & { auth: core.Principal };
type Guarded<P = Request["params"], ResBody = unknown, ReqBody = unknown, ReqQuery = unknown> = (
  req: AuthenticatedRequest<P, ResBody, ReqBody, ReqQuery>,
  res: Response<ResBody>,
  next: NextFunction,
) => unknown;

/**
 * For the host's own routes: sets `req.auth` from the access token (bearer header or cookie, by the
 * rules of the auth routes) or answers with the same 401 codes. As middleware, `req.auth` stays
 * optional in the types of the handlers after it; given the handler, that handler runs only when
 * signed in and its `req.auth` is a `Principal`.
 * @example
 * ```ts
 * app.get("/orders", requireAuth(auth), (req, res) => res.json({ userId: req.auth?.userId }));
 * app.get("/profile", requireAuth(auth, (req, res) => res.json({ userId: req.auth.userId })));
 * ```
 */
export function requireAuth(auth: core.Auth): RequestHandler;
export function requireAuth<P = Request["params"], ResBody = unknown, ReqBody = unknown, ReqQuery = unknown>(
  auth: core.Auth,
  handler: Guarded<P, ResBody, ReqBody, ReqQuery>,
): RequestHandler<P, ResBody, ReqBody, ReqQuery>;
export function requireAuth(auth: core.Auth, handler?: Guarded) {
  return guard(auth, undefined, handler);
}

/**
 * For the host's routes that need a permission in the active organization: `requireAuth`, then
 * 403 `NO_ACTIVE_ORGANIZATION` or `PERMISSION_DENIED` unless the member's role (read now) grants it.
 * @example
 * ```ts
 * app.get("/projects", requirePermission(auth, "project:read"), (req, res) => res.json(req.organization));
 * ```
 */
export const requirePermission = (auth: core.Auth, permission: string): RequestHandler =>
  guard(auth, permission);

/**
 * For the host's resource routes that take the OAuth provider's access tokens (docs/oauth-provider.md):
 * `req.oauth` set from the bearer token, or the RFC 6750 401 or 403 with `WWW-Authenticate`.
 * @example
 * ```ts
 * const check = { audience: "https://app.example.com/api", scopes: ["projects:read"] };
 * app.get("/api/reports", requireOAuth(auth, check), (req, res) => res.json({ userId: req.oauth?.userId }));
 * ```
 */
export const requireOAuth =
  (auth: core.Auth, check: core.OAuthTokenCheck): RequestHandler =>
  async (req, res, next) => {
    const refusal = await core.guardOAuthRequest(auth, req, req, check);
    return refusal ? core.writeNodeResponse(res, refusal) : next();
  };

/** Both guards: `req.auth` (and `req.organization`) set, then `handler` or `next()`; or the refusal. */
function guard(auth: core.Auth, permission?: string, handler?: Guarded) {
  const http = core.httpHandlerFor(auth);
  return async (req: Request, res: Response, next: NextFunction) => {
    const refusal = await core.guardRequest(http, req, toHttpRequest(req), permission);
    if (refusal) return core.writeNodeResponse(res, refusal);
    return handler ? handler(req as AuthenticatedRequest, res, next) : next();
  };
}
