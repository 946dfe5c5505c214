import {
  type Auth,
  createHttpHandler,
  type HttpRequest,
  type HttpResponse,
  type Principal,
} from "@portcullis/core";
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from "express";

declare global {
  namespace Express {
    interface Request {
      /** Set by `requireAuth`: the authenticated user and session. */
      auth?: Principal;
    }
  }
}

function send(res: Response, response: HttpResponse): void {
  res.removeHeader("x-powered-by");
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  if (response.cookies.length > 0) res.setHeader("set-cookie", response.cookies);
  res.end(response.body ?? undefined);
}

/** Whether the connection itself is TLS; the core reads forwarded schemes under its own `trustProxy`. */
const isEncrypted = (req: Request): boolean => "encrypted" in req.socket && req.socket.encrypted === true;

/** The raw stream, unless a body parser consumed it: then its text or bytes, or what it parsed. */
function bodyOf(req: Request): Pick<HttpRequest, "body" | "parsedBody"> {
  const parsed: unknown = req.body;
  if (typeof parsed === "string" || parsed instanceof Uint8Array) return { body: parsed };
  if (parsed !== undefined || req.readableEnded) return { parsedBody: parsed };
  return { body: req };
}

/**
 * An Express router that serves every Portcullis route under `auth.options.basePath`:
 * `app.use(createAuthRouter(auth))`. It reads the raw body itself; when a body parser ran
 * before it, the parsed body is used (its content type is still checked).
 */
export function createAuthRouter(auth: Auth): Router {
  const handler = createHttpHandler(auth);
  const router = Router();
  router.use(handler.basePath, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const response = await handler.handle({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        ...bodyOf(req),
        remoteAddress: req.socket.remoteAddress,
        encrypted: isEncrypted(req),
      });
      if (response) send(res, response);
      else next();
    } catch (error) {
      next(error);
    }
  });
  return router;
}

const handlers = new WeakMap<Auth, ReturnType<typeof createHttpHandler>>();
const handlerOf = (auth: Auth) => {
  let handler = handlers.get(auth);
  if (!handler) {
    handler = createHttpHandler(auth);
    handlers.set(auth, handler);
  }
  return handler;
};

/**
 * Sets the cookies a login sets, for a session the host started with `auth.sessions.create`
 * (after its own proof of who the user is: SSO, a magic link).
 */
export function setSessionCookies(
  auth: Auth,
  res: Response,
  tokens: { accessToken: string; refreshToken: string },
): void {
  for (const cookie of handlerOf(auth).sessionCookies(tokens)) res.append("set-cookie", cookie);
}

/** Express's default route parameters (`core.ParamsDictionary`). */
type ParamsDictionary = Request["params"];

/** A request after `requireAuth`: `auth` is set (with Express's own generics for params, body and query). */
export type AuthenticatedRequest<
  P = ParamsDictionary,
  ResBody = unknown,
  ReqBody = unknown,
  ReqQuery = unknown,
> = Request<P, ResBody, ReqBody, ReqQuery> & { auth: Principal };

/**
 * For the host's own routes: sets `req.auth` from the access token (bearer header or cookie, by
 * the same rules as the auth routes) or answers with the same 401 codes. As middleware,
 * `requireAuth(auth)`, `req.auth` stays optional in the types of the handlers after it; given the
 * handler, `requireAuth(auth, (req, res) => …)`, the handler runs only when signed in and its
 * `req.auth` is a `Principal`.
 */
export function requireAuth(auth: Auth): RequestHandler;
export function requireAuth<P = ParamsDictionary, ResBody = unknown, ReqBody = unknown, ReqQuery = unknown>(
  auth: Auth,
  handler: (
    req: AuthenticatedRequest<P, ResBody, ReqBody, ReqQuery>,
    res: Response<ResBody>,
    next: NextFunction,
  ) => unknown,
): RequestHandler<P, ResBody, ReqBody, ReqQuery>;
export function requireAuth(
  auth: Auth,
  handler?: (req: AuthenticatedRequest, res: Response, next: NextFunction) => unknown,
): RequestHandler {
  const http = createHttpHandler(auth);
  return async (req, res, next) => {
    try {
      const result = await http.authenticate({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress,
        encrypted: isEncrypted(req),
      });
      if (result.response) return send(res, result.response);
      req.auth = result.principal;
      if (!handler) return next();
      await handler(req as AuthenticatedRequest, res, next);
    } catch (error) {
      next(error);
    }
  };
}
