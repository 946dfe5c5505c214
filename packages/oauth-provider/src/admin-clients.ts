import type { HttpResponse, OAuthClientPatch, OAuthClientRecord, RouteInput } from "@portcullis/core";
import { parseClientInput } from "./clients.js";
import { OAuthError } from "./oauth-error.js";
import { oauthJson, type ProviderContext } from "./provider-context.js";
import { checkProviderScopes } from "./register.js";

/** A client as the back office shows it: everything but its secret's hash. */
export interface OAuthClientView {
  clientId: string;
  name: string;
  /** Whether it authenticates with a secret. */
  confidential: boolean;
  redirectUris: string[];
  grantTypes: string[];
  scopes: string[];
  /** Whether it registered itself (RFC 7591). */
  dynamic: boolean;
  /** ISO 8601. */
  createdAt: string;
}

/** The view of a stored client: `secretHash` never leaves the provider. */
export function clientView(client: OAuthClientRecord): OAuthClientView {
  return {
    clientId: client.clientId,
    name: client.name,
    confidential: client.secretHash !== null,
    redirectUris: [...client.redirectUris],
    grantTypes: [...client.grantTypes],
    scopes: [...client.scopes],
    dynamic: client.dynamic,
    createdAt: new Date(client.createdAt).toISOString(),
  };
}

/** What `PATCH /oauth2/clients/:clientId` may change. */
const PATCHABLE = new Set(["name", "redirectUris", "scopes", "grantTypes"]);
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

const noSuchClient = () => oauthJson(404, { error: "not_found", error_description: "no such client" });

/**
 * The back office's check (`auth.admin.authorize`: a signed-in admin, not an impersonation, with
 * a live step-up token): the admin's user id. Its refusals are `AuthError`s, which the core
 * answers in its own shape (docs/errors.md).
 */
async function adminOf(ctx: ProviderContext, input: RouteInput<"admin">): Promise<string> {
  const call = { principal: input.principal, stepUpToken: input.stepUpToken, request: input.meta };
  return (await ctx.auth.admin.authorize(call)).adminId;
}

/** Runs `work` as an admin; an `OAuthError` (bad client metadata) answers in RFC 7591's JSON. */
function adminRoute(
  work: (ctx: ProviderContext, input: RouteInput<"admin">, adminId: string) => Promise<HttpResponse>,
) {
  return async (ctx: ProviderContext, input: RouteInput<"admin">): Promise<HttpResponse> => {
    const adminId = await adminOf(ctx, input);
    try {
      return await work(ctx, input, adminId);
    } catch (error) {
      if (error instanceof OAuthError) return oauthJson(error.status, error.toJSON());
      throw error;
    }
  };
}

/** Logs a change to a client, naming the admin (the provider emits no security event of its own). */
function logChange(ctx: ProviderContext, event: string, clientId: string, adminId: string): void {
  ctx.auth.logger.info(
    { event: `oauth_provider.${event}`, clientId, actor: adminId },
    `OAuth client ${event}`,
  );
}

/** `limit` as a page size: 1 to 100, default 20. */
function pageSize(value: string | null): number {
  if (value === null) return DEFAULT_PAGE;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_PAGE)
    throw new OAuthError("invalid_request", `limit must be a whole number from 1 to ${MAX_PAGE}`);
  return limit;
}

/**
 * `GET <prefix>/oauth2/clients?after=&limit=`: `{ items, nextAfter }`, clients by id, `limit` at a
 * time (1 to 100, default 20); `nextAfter`, the `after` of the next page, is null on the last.
 */
const listClients = adminRoute(async (ctx, input) => {
  const limit = pageSize(input.query.get("limit"));
  const after = input.query.get("after") ?? undefined;
  const page = await ctx.oauth.listOAuthClients({ limit: limit + 1, ...(after ? { after } : {}) });
  const items = page.slice(0, limit);
  const nextAfter = page.length > limit ? (items.at(-1)?.clientId ?? null) : null;
  return oauthJson(200, { items: items.map(clientView), nextAfter });
});

/**
 * `POST <prefix>/oauth2/clients` with an `OAuthClientInput`: 201 `{ client, clientSecret? }`, the
 * secret of a confidential client in this answer only. Its scopes must be the provider's.
 */
const createClient = adminRoute(async (ctx, input, adminId) => {
  const client = parseClientInput(await input.body<unknown>());
  checkProviderScopes(ctx, client.scopes);
  const created = await ctx.clients.create(client);
  logChange(ctx, "client_created", created.client.clientId, adminId);
  const secret = created.clientSecret === undefined ? {} : { clientSecret: created.clientSecret };
  return oauthJson(201, { client: clientView(created.client), ...secret });
});

/** The fields of a PATCH body, checked as a whole client with the stored one's other fields. */
function patchOf(ctx: ProviderContext, client: OAuthClientRecord, body: unknown): OAuthClientPatch {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new OAuthError("invalid_client_metadata", "the body must be an object");
  const changes = body as Record<string, unknown>;
  const unknown = Object.keys(changes).find((key) => !PATCHABLE.has(key) && changes[key] !== undefined);
  if (unknown !== undefined)
    throw new OAuthError(
      "invalid_client_metadata",
      `${unknown} cannot be changed: only name, redirectUris, scopes and grantTypes (a secret is rotated at /secret)`,
    );
  const merged = parseClientInput({
    name: client.name,
    confidential: client.secretHash !== null,
    redirectUris: client.redirectUris,
    grantTypes: client.grantTypes,
    scopes: client.scopes,
    ...changes,
  });
  checkProviderScopes(ctx, merged.scopes);
  const patch: OAuthClientPatch = {};
  if (changes.name !== undefined) patch.name = merged.name;
  if (changes.redirectUris !== undefined) patch.redirectUris = merged.redirectUris;
  if (changes.scopes !== undefined) patch.scopes = merged.scopes;
  if (changes.grantTypes !== undefined) patch.grantTypes = merged.grantTypes ?? [];
  return patch;
}

/**
 * `PATCH <prefix>/oauth2/clients/:clientId` `{ name?, redirectUris?, scopes?, grantTypes? }`: the
 * client as changed. The result must be a valid client (e.g. `authorization_code` keeps a
 * redirect URI; `client_credentials` stays with confidential clients).
 */
const updateClient = adminRoute(async (ctx, input, adminId) => {
  const clientId = input.params.clientId ?? "";
  const client = await ctx.clients.get(clientId);
  if (client === null) return noSuchClient();
  const patch = patchOf(ctx, client, await input.body<unknown>());
  if (Object.keys(patch).length > 0) {
    if (!(await ctx.oauth.updateOAuthClient(clientId, patch))) return noSuchClient();
    logChange(ctx, "client_updated", clientId, adminId);
  }
  return oauthJson(200, { client: clientView({ ...client, ...patch }) });
});

/**
 * `POST <prefix>/oauth2/clients/:clientId/secret`: a new secret for a confidential client, in
 * this answer only (`{ clientId, clientSecret }`); the old one stops working at once.
 */
const rotateSecret = adminRoute(async (ctx, input, adminId) => {
  const clientId = input.params.clientId ?? "";
  const client = await ctx.clients.get(clientId);
  if (client === null) return noSuchClient();
  if (client.secretHash === null)
    throw new OAuthError("invalid_request", "a public client has no secret to rotate");
  const clientSecret = await ctx.clients.rotateSecret(clientId);
  if (clientSecret === null) return noSuchClient();
  logChange(ctx, "client_secret_rotated", clientId, adminId);
  return oauthJson(200, { clientId, clientSecret });
});

/** `DELETE <prefix>/oauth2/clients/:clientId`: the client, its grants (their tokens refused from now on) and consents. */
const deleteClient = adminRoute(async (ctx, input, adminId) => {
  const clientId = input.params.clientId ?? "";
  if (!(await ctx.oauth.deleteOAuthClient(clientId))) return noSuchClient();
  logChange(ctx, "client_deleted", clientId, adminId);
  return oauthJson(200, { success: true });
});

const JSON_ANSWER = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object" } } },
});
const CLIENT_BODY = {
  required: true,
  content: { "application/json": { schema: { type: "object" } } },
};
/** The answers every admin route may give besides its success. */
const ADMIN_REFUSALS = {
  400: JSON_ANSWER(
    "RFC 7591 `{ error, error_description }`: `invalid_client_metadata`, `invalid_redirect_uri`.",
  ),
  401: JSON_ANSWER("docs/errors.md: `AUTHENTICATION_REQUIRED`, `STEP_UP_REQUIRED`."),
  403: JSON_ANSWER("docs/errors.md: `ADMIN_REQUIRED`, `IMPERSONATION_NOT_ALLOWED`, `CSRF_REJECTED`."),
};
const ONE_CLIENT = { 404: JSON_ANSWER("`{ error: not_found }`: no such client.") };

/** A route of the back office's client management: its method, path, summary, operation and handler. */
export interface AdminClientRoute {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  summary: string;
  operation: Record<string, unknown>;
  handle: (ctx: ProviderContext, input: RouteInput<"admin">) => Promise<HttpResponse>;
}

/**
 * The back office's client management under `<prefix>/oauth2/clients` (route auth `admin`; each
 * checks the caller with `auth.admin.authorize`): list, create, change, rotate a secret, delete.
 */
export const ADMIN_CLIENT_ROUTES: readonly AdminClientRoute[] = [
  {
    method: "GET",
    path: "/oauth2/clients",
    summary: "The provider's clients, a page at a time (back office)",
    operation: {
      parameters: [
        { name: "after", in: "query", schema: { type: "string" } },
        { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: MAX_PAGE } },
      ],
      responses: { 200: JSON_ANSWER("`{ items: [client], nextAfter }`."), ...ADMIN_REFUSALS },
    },
    handle: listClients,
  },
  {
    method: "POST",
    path: "/oauth2/clients",
    summary: "Creates a client; a confidential one's secret is in this answer only (back office)",
    operation: {
      requestBody: CLIENT_BODY,
      responses: { 201: JSON_ANSWER("`{ client, clientSecret? }`."), ...ADMIN_REFUSALS },
    },
    handle: createClient,
  },
  {
    method: "PATCH",
    path: "/oauth2/clients/:clientId",
    summary: "Changes a client's name, redirect URIs, scopes or grants (back office)",
    operation: {
      requestBody: CLIENT_BODY,
      responses: { 200: JSON_ANSWER("`{ client }`."), ...ADMIN_REFUSALS, ...ONE_CLIENT },
    },
    handle: updateClient,
  },
  {
    method: "POST",
    path: "/oauth2/clients/:clientId/secret",
    summary: "A new secret for a confidential client, in this answer only (back office)",
    operation: {
      responses: { 200: JSON_ANSWER("`{ clientId, clientSecret }`."), ...ADMIN_REFUSALS, ...ONE_CLIENT },
    },
    handle: rotateSecret,
  },
  {
    method: "DELETE",
    path: "/oauth2/clients/:clientId",
    summary: "Deletes a client with its grants and consents (back office)",
    operation: {
      responses: { 200: JSON_ANSWER("`{ success: true }`."), ...ADMIN_REFUSALS, ...ONE_CLIENT },
    },
    handle: deleteClient,
  },
];
