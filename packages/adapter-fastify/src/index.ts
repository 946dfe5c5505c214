import * as core from "@portcullis/core";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import fp from "fastify-plugin";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `portcullisAuthenticate`: the authenticated user and session; null before. */
    auth: core.Principal | null;
    /** Set by `requirePermission`: the active organization and the member's role in it; null before. */
    organization: core.OrganizationAccess | null;
    /** Set by `requireOAuth`: what the OAuth provider's access token says; undefined before. */
    oauth?: core.OAuthAccessToken;
  }
  interface FastifyInstance {
    /** preHandler for the host's own routes: sets `request.auth` or answers 401 (see `portcullis`). */
    portcullisAuthenticate: preHandlerAsyncHookHandler;
  }
}

export interface PortcullisPluginOptions {
  /** The instance from `createAuth`; its `basePath` is where the routes are served. */
  auth: core.Auth;
}

const send = (reply: FastifyReply, { status, headers, cookies, body, stream }: core.HttpResponse) => {
  reply.code(status).headers(headers);
  return (cookies.length > 0 ? reply.header("set-cookie", cookies) : reply).send(stream ?? body ?? undefined);
};

/** Fastify's refusals of a Content-Type before any parser runs: the core judges these bodies too. */
const REFUSED_TYPE = new Set(["FST_ERR_CTP_INVALID_MEDIA_TYPE", "FST_ERR_ROUTE_MISSING_CONTENT_TYPE"]);

async function plugin(fastify: FastifyInstance, { auth }: PortcullisPluginOptions): Promise<void> {
  const handler = core.httpHandlerFor(auth);
  core.answerMalformedPaths(fastify.server, handler); // Fastify's router would answer them (400)
  fastify.decorateRequest("auth", null);
  fastify.decorateRequest("organization", null);
  fastify.decorate("portcullisAuthenticate", guard(auth));
  // The auth routes in a context whose parsers pass the stream on (JSON by its type, any other by "*").
  await fastify.register(async (scope) => {
    const answer = async (req: FastifyRequest, reply: FastifyReply, body = req.body as core.RequestBody) => {
      const response = await handler.handle(core.fromNodeRequest(req.raw, { body }));
      return response ? send(reply, response) : reply.callNotFound();
    };
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(["application/json", "*"], (_request, body, done) => done(null, body));
    scope.setErrorHandler((error: Error & { code?: string }, request, reply) => {
      if (!REFUSED_TYPE.has(String(error.code))) throw error;
      return answer(request, reply, request.raw);
    });
    // Every method Fastify knows, so the core answers 404 NOT_FOUND for those it does not serve.
    for (const url of [handler.basePath, `${handler.basePath}/*`]) scope.all(url, answer);
  });
}

const guard = (auth: core.Auth, permission?: string): preHandlerAsyncHookHandler =>
  core.createGuardHook(auth, (request) => core.fromNodeRequest(request.raw), send, permission);

/**
 * preHandler for a permission in the active organization: `portcullisAuthenticate`, then 403 unless it is granted.
 * @example
 * ```ts
 * app.get("/projects", { preHandler: requirePermission(auth, "project:read") }, async (r) => r.organization);
 * ```
 */
export const requirePermission = (auth: core.Auth, permission: string) => guard(auth, permission);

/**
 * preHandler for resource routes that take the OAuth provider's access tokens (docs/oauth-provider.md):
 * `request.oauth` set from the bearer token, or the RFC 6750 401 or 403 with `WWW-Authenticate`.
 * @example
 * ```ts
 * const check = { audience: "https://app.example.com/api", scopes: ["projects:read"] };
 * app.get("/api/reports", { preHandler: requireOAuth(auth, check) }, async (r) => ({ userId: r.oauth?.userId }));
 * ```
 */
export const requireOAuth =
  (auth: core.Auth, check: core.OAuthTokenCheck) => async (request: FastifyRequest, reply: FastifyReply) => {
    const refusal = await core.guardOAuthRequest(auth, request, request.raw, check);
    if (refusal) return send(reply, refusal);
  };

/** Sets a login's cookies, for a session the host started with `auth.sessions.create` itself. */
export const setSessionCookies = (auth: core.Auth, reply: FastifyReply, tokens: core.SessionCookieTokens) =>
  reply.header("set-cookie", core.httpHandlerFor(auth).sessionCookies(tokens));

/** A request after `portcullisAuthenticate`: `auth` is set. */
export type AuthenticatedRequest<R extends FastifyRequest = FastifyRequest> = R & { auth: core.Principal };

/**
 * A route handler whose `request.auth` is a `Principal` in its type (which Fastify cannot narrow)
 * and at run time: it authenticates the request itself when no `portcullisAuthenticate` ran.
 * @example
 * ```ts
 * app.get("/profile", withAuth(async (request) => ({ userId: request.auth.userId })));
 * ```
 */
export function withAuth<R extends FastifyRequest, Result>(
  handler: (this: FastifyInstance, request: AuthenticatedRequest<R>, reply: FastifyReply) => Result,
): (this: FastifyInstance, request: R, reply: FastifyReply) => Promise<Result | FastifyReply> {
  return async function (this: FastifyInstance, request, reply) {
    if (!request.auth) await this.portcullisAuthenticate.call(this, request, reply);
    return request.auth ? handler.call(this, request as AuthenticatedRequest<R>, reply) : reply;
  };
}

/**
 * The plugin: the auth routes under `auth.options.basePath`, `app.portcullisAuthenticate`, `request.auth`.
 * @example
 * ```ts
 * await app.register(portcullis, { auth }); // once, at the top level (no prefix)
 * app.get("/orders", { preHandler: app.portcullisAuthenticate }, async (request) => request.auth);
 * ```
 */
export const portcullis = fp(plugin, { name: "@portcullis/adapter-fastify", fastify: "5.x" });
export default portcullis;
