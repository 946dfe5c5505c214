import {
  type Auth,
  fromNodeRequest,
  httpHandlerFor,
  nodeRequestBody,
  type OrganizationAccess,
  type Principal,
  type SessionCookieTokens,
  writeNodeResponse,
} from "@portcullis/core";
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireAuth` and `requirePermission`: the authenticated user and session. */
      auth?: Principal;
      /** Set by `requirePermission`: the active organization and the member's role and permissions. */
      organization?: OrganizationAccess;
    }
  }
}

/** The core's request: the full URL (a router strips its mount path from `req.url`) and the body. */
const toHttpRequest = (req: Request) =>
  fromNodeRequest(req, { url: req.originalUrl, ...nodeRequestBody(req) });

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
export function createAuthRouter(auth: Auth): Router {
  const handler = httpHandlerFor(auth);
  return Router().use(handler.basePath, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const response = await handler.handle(toHttpRequest(req));
      if (response) writeNodeResponse(res, response);
      else next();
    } catch (error) {
      next(error);
    }
  });
}

/** Sets a login's cookies, for a session the host started with `auth.sessions.create` itself. */
export function setSessionCookies(auth: Auth, res: Response, tokens: SessionCookieTokens): void {
  res.append("set-cookie", httpHandlerFor(auth).sessionCookies(tokens));
}

/** A request after `requireAuth`: `auth` is set (with Express's own generics for params, body and query). */
export type AuthenticatedRequest<
  P = Request["params"],
  ResBody = unknown,
  ReqBody = unknown,
  ReqQuery = unknown,
> = Request<P, ResBody, ReqBody, ReqQuery> & { auth: Principal };
type Guarded<P, ResBody, ReqBody, ReqQuery> = (
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
export function requireAuth(auth: Auth): RequestHandler;
export function requireAuth<P = Request["params"], ResBody = unknown, ReqBody = unknown, ReqQuery = unknown>(
  auth: Auth,
  handler: Guarded<P, ResBody, ReqBody, ReqQuery>,
): RequestHandler<P, ResBody, ReqBody, ReqQuery>;
export function requireAuth(auth: Auth, handler?: Guarded<Request["params"], unknown, unknown, unknown>) {
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
export const requirePermission = (auth: Auth, permission: string): RequestHandler => guard(auth, permission);

function guard(
  auth: Auth,
  permission?: string,
  handler?: Guarded<Request["params"], unknown, unknown, unknown>,
) {
  const http = httpHandlerFor(auth);
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await http.authenticate(toHttpRequest(req), permission);
      if (result.response) return writeNodeResponse(res, result.response);
      req.auth = result.principal;
      if (result.organization) req.organization = result.organization;
      await (handler ? handler(req as AuthenticatedRequest, res, next) : next());
    } catch (error) {
      next(error);
    }
  };
}
