import {
  type Auth,
  type HttpResponse,
  httpHandlerFor,
  isEncryptedSocket,
  type Principal,
  type ResponseWriter,
  writeResponse,
} from "@portcullis/core";
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from "fastify";
import fp from "fastify-plugin";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `portcullisAuthenticate`: the authenticated user and session; null before. */
    auth: Principal | null;
  }
  interface FastifyInstance {
    /** preHandler for the host's own routes: sets `request.auth` or answers with the 401 codes. */
    portcullisAuthenticate: preHandlerAsyncHookHandler;
  }
}

export interface PortcullisPluginOptions {
  /** The instance from `createAuth`; its `basePath` is where the routes are served. */
  auth: Auth;
}

const writer: ResponseWriter<FastifyReply, FastifyReply> = {
  status: (reply, status) => reply.code(status),
  header: (reply, name, value) => reply.header(name, value),
  end: (reply, body) => reply.send(body),
};
const send = (reply: FastifyReply, response: HttpResponse): FastifyReply =>
  writeResponse(reply, response, writer);

/**
 * Fastify judges the Content-Type itself before any parser runs (415 for one it cannot parse,
 * 400 for a QUERY without one). Under the auth routes a stand-in type takes its place for that
 * check, so every body reaches the catch-all parser, which puts the real header back for the core.
 */
const STAND_IN_TYPE = "application/x-portcullis-deferred";
const deferred = new WeakMap<object, string | undefined>();
const BODYLESS = new Set(["GET", "HEAD", "TRACE"]);

function restoreContentType(request: FastifyRequest): void {
  if (!deferred.has(request.raw)) return;
  const original = deferred.get(request.raw);
  deferred.delete(request.raw);
  if (original === undefined) delete request.raw.headers["content-type"];
  else request.raw.headers["content-type"] = original;
}

const plugin: FastifyPluginAsync<PortcullisPluginOptions> = async (fastify, { auth }) => {
  const handler = httpHandlerFor(auth);

  fastify.decorateRequest("auth", null);
  fastify.decorate("portcullisAuthenticate", async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await handler.authenticate({
      method: request.method,
      url: request.url,
      headers: request.headers,
      remoteAddress: request.raw.socket.remoteAddress,
      encrypted: isEncryptedSocket(request.raw.socket),
    });
    if (result.response) return send(reply, result.response);
    request.auth = result.principal;
  });

  // The auth routes live in their own context: its only parser hands the raw payload stream to
  // the core (which applies its 415/413/400 rules) and leaves the host's parsers untouched.
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    const handOver = (
      request: FastifyRequest,
      payload: unknown,
      done: (error: null, body: unknown) => void,
    ) => {
      restoreContentType(request);
      done(null, payload);
    };
    // Registered by its exact type, the stand-in's parser is found in Fastify's parser cache; a
    // catch-all alone is looked up by parsing the Content-Type anew on every request.
    scope.addContentTypeParser(STAND_IN_TYPE, handOver);
    scope.addContentTypeParser("*", handOver);
    // Route-level hooks run after the host's, just before Fastify looks at the Content-Type.
    // A request Fastify sees as bodiless (no Content-Type, no length or `0`, not chunked) goes
    // straight to the handler, so it needs no stand-in; with one it would pass through the
    // parser machinery (an AsyncResource per request), the larger part of a bodiless POST's cost.
    const preParsing = (
      request: FastifyRequest,
      _reply: FastifyReply,
      _payload: unknown,
      done: () => void,
    ) => {
      const { headers } = request.raw;
      const type = headers["content-type"];
      const bodiless =
        type === undefined &&
        headers["transfer-encoding"] === undefined &&
        (headers["content-length"] === undefined || headers["content-length"] === "0") &&
        request.method !== "QUERY";
      if (!bodiless) {
        deferred.set(request.raw, type);
        headers["content-type"] = STAND_IN_TYPE;
      }
      done();
    };
    const route = async (request: FastifyRequest, reply: FastifyReply) => {
      restoreContentType(request);
      const response = await handler.handle({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body as AsyncIterable<Uint8Array> | undefined,
        remoteAddress: request.raw.socket.remoteAddress,
        encrypted: isEncryptedSocket(request.raw.socket),
      });
      return response ? send(reply, response) : reply.callNotFound();
    };
    // Every method Fastify knows, so the core answers 404 NOT_FOUND for the ones it does not serve;
    // the hook only where a body can come (GET /me is the hot path: no hook to run there).
    const withBody = scope.supportedMethods.filter((method) => !BODYLESS.has(method));
    const bodyless = scope.supportedMethods.filter((method) => BODYLESS.has(method));
    for (const url of [handler.basePath, `${handler.basePath}/*`]) {
      scope.route({ method: bodyless, url, handler: route });
      scope.route({ method: withBody, url, preParsing, handler: route });
    }
  });
};

/**
 * Sets the cookies a login sets, for a session the host started with `auth.sessions.create`
 * (after its own proof of who the user is: SSO, a magic link). `rememberMe: false` (as
 * `sessions.create` returns it for such a session): cookies without Max-Age.
 */
export function setSessionCookies(
  auth: Auth,
  reply: FastifyReply,
  tokens: { accessToken: string; refreshToken: string; rememberMe?: boolean },
): FastifyReply {
  const existing = reply.getHeader("set-cookie");
  const before =
    existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  return reply.header("set-cookie", [...before, ...httpHandlerFor(auth).sessionCookies(tokens)]);
}

/** A request after `portcullisAuthenticate`: `auth` is set. */
export type AuthenticatedRequest<R extends FastifyRequest = FastifyRequest> = R & { auth: Principal };

/**
 * A route handler whose `request.auth` is a `Principal`, in its type and at run time. Fastify's
 * types cannot narrow `request.auth` after a preHandler, so wrap the handler: `app.get("/me",
 * { preHandler: app.portcullisAuthenticate }, withAuth(async (request) => request.auth.userId))`.
 * When no `portcullisAuthenticate` ran before it, it authenticates the request itself (the same
 * 401 answers), so the handler never runs signed out.
 */
export function withAuth<R extends FastifyRequest, Result>(
  handler: (this: FastifyInstance, request: AuthenticatedRequest<R>, reply: FastifyReply) => Result,
): (this: FastifyInstance, request: R, reply: FastifyReply) => Promise<Result | FastifyReply> {
  return async function (this: FastifyInstance, request, reply) {
    if (!request.auth) await this.portcullisAuthenticate.call(this, request, reply);
    if (!request.auth) return reply;
    return handler.call(this, request as AuthenticatedRequest<R>, reply);
  };
}

/** The Portcullis Fastify plugin: `await app.register(portcullis, { auth })`. */
export const portcullis = fp(plugin, { name: "@portcullis/adapter-fastify", fastify: "5.x" });
export default portcullis;
