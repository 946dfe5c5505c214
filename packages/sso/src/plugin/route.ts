import type { ErrorCode, HttpResponse, Route, RouteAuth, RouteInput, RouteSpec } from "@portcullis/core";
import type { SsoContext } from "./context.js";

/** What a route of the plugin declares besides its handler. */
export interface SsoRouteSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  auth: RouteAuth;
  /** Called by other sites without our credentials (SAML's ACS, SCIM): no CSRF check. */
  crossOrigin?: boolean;
  /** The error codes it can answer with (the OpenAPI document's). */
  errors: readonly ErrorCode[];
  /** Its JSON body as the OpenAPI document shows it (bodies.ts); the handler checks the body itself. */
  body?: RouteSpec["body"];
}

/** A route of the core's HTTP layer running `handle` with the plugin's context. */
export function ssoRoute(
  ctx: SsoContext,
  spec: SsoRouteSpec,
  handle: (ctx: SsoContext, input: RouteInput) => Promise<HttpResponse>,
): Route {
  return { ...spec, handle: (input: RouteInput) => handle(ctx, input) } as Route;
}

/** A path parameter (`:name`), empty when absent. */
export const param = (input: RouteInput, name: string) => input.params[name] ?? "";
