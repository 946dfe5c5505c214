import type { Auth } from "../create-auth/create-auth.js";
import type { Principal } from "../model.js";
import type { OAuthAccessToken } from "../options/oauth-provider-options.js";
import { type HttpHandler, httpHandlerFor, type OrganizationAccess } from "./handler.js";
import { authenticateOAuth, type OAuthTokenCheck } from "./oauth-guard.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** Where a guard puts what it found: the framework's request (Express's `req`, Fastify's `request`). */
export interface GuardTarget {
  auth?: Principal | null | undefined;
  organization?: OrganizationAccess | null | undefined;
}

/** What a guard reads of a request: all but its body. */
type GuardedRequest = Omit<HttpRequest, "body" | "parsedBody">;

/**
 * The guard of the host's own routes as the Node adapters run it: `handler.authenticate` (the
 * request's access token by the auth routes' rules; with `permission`, the member's role in the
 * active organization), then `target.auth` and, with a permission, `target.organization` set.
 * Returns the 401, 403 or 500 response to send instead, or undefined when the request may pass.
 */
export async function guardRequest(
  handler: HttpHandler,
  target: GuardTarget,
  request: GuardedRequest,
  permission?: string,
): Promise<HttpResponse | undefined> {
  const result = await handler.authenticate(request, permission);
  if (result.response) return result.response;
  target.auth = result.principal;
  if (result.organization) target.organization = result.organization;
  return undefined;
}

/**
 * `guardRequest` as a hook of a framework whose hooks take the request and the reply (Fastify's
 * preHandler): `toRequest` maps the framework's request, `refuse` sends a refusal on the reply and
 * its result is the hook's; undefined when the request may pass. Uses the handler of `auth`.
 */
export function createGuardHook<Target extends GuardTarget, Reply, Result>(
  auth: Auth,
  toRequest: (target: Target) => GuardedRequest,
  refuse: (reply: Reply, refusal: HttpResponse) => Result,
  permission?: string,
): (target: Target, reply: Reply) => Promise<Result | undefined> {
  const handler = httpHandlerFor(auth);
  return async (target, reply) => {
    const refusal = await guardRequest(handler, target, toRequest(target), permission);
    return refusal ? refuse(reply, refusal) : undefined;
  };
}

/** Where an OAuth guard puts the verified token: the framework's request. */
export interface OAuthGuardTarget {
  oauth?: OAuthAccessToken | null | undefined;
}

/**
 * The OAuth guard of the host's resource routes as the adapters run it (`requireOAuth`):
 * `authenticateOAuth`, then `target.oauth` set. Returns the 401 or 403 response to send instead
 * (RFC 6750, with `WWW-Authenticate`), or undefined when the request may pass.
 */
export async function guardOAuthRequest(
  auth: Auth,
  target: OAuthGuardTarget,
  request: Pick<HttpRequest, "headers">,
  check: OAuthTokenCheck,
): Promise<HttpResponse | undefined> {
  const result = await authenticateOAuth(auth, request, check);
  if (result.response) return result.response;
  target.oauth = result.token;
  return undefined;
}
