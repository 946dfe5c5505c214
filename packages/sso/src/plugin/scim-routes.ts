import type { HttpResponse, Route, RouteInput } from "@portcullis/core";
import {
  scimResourceTypeById,
  scimResourceTypes,
  scimSchemaById,
  scimSchemas,
  scimServiceProviderConfig,
} from "../scim/discovery.js";
import type { SsoContext } from "./context.js";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "./scim-groups.js";
import { refuseStatus, type ScimCall, scimAnswer, scimRoute } from "./scim-http.js";
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from "./scim-users.js";

// SCIM 2.0 (RFC 7643/7644) per SSO connection, at `<prefix>/scim/v2/` with the connection's
// bearer token (docs/sso.md, "SCIM"): its users and groups, and the discovery documents.

/** A SCIM answer's OpenAPI description: `application/scim+json`, RFC 7644's shape. */
const scimContent = (description: string) => ({
  description,
  content: { "application/scim+json": { schema: { type: "object" } } },
});

/** The OpenAPI operation of a SCIM route: the bearer token, a SCIM body when it takes one, SCIM's answers. */
function operationOf(method: string, success: number) {
  const body = method === "POST" || method === "PUT" || method === "PATCH";
  return {
    tags: ["scim"],
    description:
      "Authorization: `Bearer <the connection's SCIM token>` (shown once when the connection was made).",
    security: [{ bearer: [] }],
    ...(body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/scim+json": { schema: { type: "object" } },
              "application/json": { schema: { type: "object" } },
            },
          },
        }
      : {}),
    responses: {
      [String(success)]:
        success === 204 ? { description: "Done; no body." } : scimContent("The resource or list (RFC 7644)."),
      "400": scimContent("A SCIM error with its `scimType` (invalidFilter, invalidValue, invalidSyntax…)."),
      "401": scimContent("No SCIM token, or not a valid one."),
      "404": scimContent("No such resource in this connection's directory."),
      "409": scimContent("`uniqueness`: a userName or group name taken, or an account provisioned already."),
      "500": scimContent("The server could not finish the request (a store failure); nothing was granted."),
    },
  };
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One SCIM route: public to the HTTP layer (the plugin checks the token), no CSRF, SCIM's answers. */
function scim(
  ctx: SsoContext,
  method: Method,
  path: string,
  summary: string,
  handle: (call: ScimCall) => Promise<HttpResponse>,
  success = 200,
): Route {
  const run = scimRoute(handle);
  return {
    method,
    path: `/scim/v2${path}`,
    summary,
    auth: "none",
    crossOrigin: true,
    errors: [],
    operation: operationOf(method, success),
    handle: (input: RouteInput) => run(ctx, input),
  } as Route;
}

/** A discovery document, or 404 in SCIM's shape. */
const found = (document: unknown, what: string) =>
  document === null ? refuseStatus(404, `No ${what} of that id.`) : scimAnswer(200, document);

/** The SCIM routes, served when `createSso` has the `scim` store. */
export function scimRoutes(ctx: SsoContext): Route[] {
  if (ctx.scim === undefined) return [];
  const id = (call: ScimCall) => call.input.params.id ?? "";
  return [
    scim(ctx, "GET", "/ServiceProviderConfig", "SCIM: what this server supports", async (call) =>
      scimAnswer(200, scimServiceProviderConfig(call.baseUrl)),
    ),
    scim(ctx, "GET", "/Schemas", "SCIM: the User and Group schemas", async (call) =>
      scimAnswer(200, scimSchemas(call.baseUrl)),
    ),
    scim(ctx, "GET", "/Schemas/:id", "SCIM: one schema", async (call) =>
      found(scimSchemaById(call.baseUrl, id(call)), "schema"),
    ),
    scim(ctx, "GET", "/ResourceTypes", "SCIM: the User and Group resource types", async (call) =>
      scimAnswer(200, scimResourceTypes(call.baseUrl)),
    ),
    scim(ctx, "GET", "/ResourceTypes/:id", "SCIM: one resource type", async (call) =>
      found(scimResourceTypeById(call.baseUrl, id(call)), "resource type"),
    ),
    scim(ctx, "GET", "/Users", "SCIM: the connection's users (filter, startIndex, count)", listUsers),
    scim(ctx, "POST", "/Users", "SCIM: provision a user", createUser, 201),
    scim(ctx, "GET", "/Users/:id", "SCIM: one user", getUser),
    scim(ctx, "PUT", "/Users/:id", "SCIM: replace a user", replaceUser),
    scim(ctx, "PATCH", "/Users/:id", "SCIM: change a user (deactivate with active false)", patchUser),
    scim(ctx, "DELETE", "/Users/:id", "SCIM: deprovision and delete a user", deleteUser, 204),
    scim(ctx, "GET", "/Groups", "SCIM: the connection's groups (filter, startIndex, count)", listGroups),
    scim(ctx, "POST", "/Groups", "SCIM: create a group", createGroup, 201),
    scim(ctx, "GET", "/Groups/:id", "SCIM: one group", getGroup),
    scim(ctx, "PUT", "/Groups/:id", "SCIM: replace a group", replaceGroup),
    scim(ctx, "PATCH", "/Groups/:id", "SCIM: change a group's members or name", patchGroup),
    scim(ctx, "DELETE", "/Groups/:id", "SCIM: delete a group", deleteGroup, 204),
  ];
}
