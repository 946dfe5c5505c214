import {
  type Auth,
  type HttpRequest,
  type HttpResponse,
  httpHandlerFor,
  isEncryptedSocket,
  type Principal,
  type ResponseWriter,
  writeResponse,
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

const writer: ResponseWriter<Response, void> = {
  status(res, status) {
    res.removeHeader("x-powered-by");
    res.status(status);
  },
  header: (res, name, value) => res.setHeader(name, value),
  end: (res, body) => res.end(body),
};
const send = (res: Response, response: HttpResponse): void => writeResponse(res, response, writer);

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
  const handler = httpHandlerFor(auth);
  const router = Router();
  router.use(handler.basePath, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const response = await handler.handle({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        ...bodyOf(req),
        remoteAddress: req.socket.remoteAddress,
        encrypted: isEncryptedSocket(req.socket),
      });
      if (response) send(res, response);
      else next();
    } catch (error) {
      next(error);
    }
  });
  return router;
}

/**
 * Sets the cookies a login sets, for a session the host started with `auth.sessions.create`
 * (after its own proof of who the user is: SSO, a magic link). `rememberMe: false` (as
 * `sessions.create` returns it for such a session): cookies without Max-Age.
 */
export function setSessionCookies(
  auth: Auth,
  res: Response,
  tokens: { accessToken: string; refreshToken: string; rememberMe?: boolean },
): void {
  for (const cookie of httpHandlerFor(auth).sessionCookies(tokens)) res.append("set-cookie", cookie);
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
  const http = httpHandlerFor(auth);
  return async (req, res, next) => {
    try {
      const result = await http.authenticate({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
        remoteAddress: req.socket.remoteAddress,
        encrypted: isEncryptedSocket(req.socket),
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
