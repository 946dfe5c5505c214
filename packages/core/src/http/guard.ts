import type { Principal } from "../model.js";
import type { HttpHandler, OrganizationAccess } from "./handler.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** Where a guard puts what it found: the framework's request (Express's `req`, Fastify's `request`). */
export interface GuardTarget {
  auth?: Principal | null | undefined;
  organization?: OrganizationAccess | null | undefined;
}

/**
 * The guard of the host's own routes as the Node adapters run it: `handler.authenticate` (the
 * request's access token by the auth routes' rules; with `permission`, the member's role in the
 * active organization), then `target.auth` and, with a permission, `target.organization` set.
 * Returns the 401, 403 or 500 response to send instead, or undefined when the request may pass.
 */
export async function guardRequest(
  handler: HttpHandler,
  target: GuardTarget,
  request: Omit<HttpRequest, "body" | "parsedBody">,
  permission?: string,
): Promise<HttpResponse | undefined> {
  const result = await handler.authenticate(request, permission);
  if (result.response) return result.response;
  target.auth = result.principal;
  if (result.organization) target.organization = result.organization;
  return undefined;
}
