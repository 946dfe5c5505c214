import {
  type HttpResponse,
  ipBucket,
  type RequestContext,
  type RouteInput,
  ValidationError,
} from "@portcullis/core";
import { type OAuthClientInput, parseClientInput } from "./clients.js";
import { STANDARD_SCOPES } from "./discovery.js";
import { OAuthError } from "./oauth-error.js";
import { oauthJson, type ProviderContext, scopeList } from "./provider-context.js";

const metadataError = (description: string) => new OAuthError("invalid_client_metadata", description);

/** The scopes a client may be registered with: the standard ones and the host's (`scopes`). */
export const providerScopes = (ctx: ProviderContext): string[] => [
  ...new Set([...STANDARD_SCOPES, ...ctx.scopes]),
];

/** Refuses, with `invalid_client_metadata`, a scope the provider does not offer. */
export function checkProviderScopes(ctx: ProviderContext, scopes: readonly string[]): void {
  const offered = providerScopes(ctx);
  const foreign = scopes.find((scope) => !offered.includes(scope));
  if (foreign !== undefined)
    throw metadataError(`the scope ${foreign} is not offered: the scopes are ${offered.join(" ")}`);
}

/** A metadata field that must be a string when present. */
function text(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw metadataError(`${name} must be a string`);
  return value;
}

/** A metadata field that must be an array of strings when present. */
function strings(fields: Record<string, unknown>, name: string, error = metadataError): string[] | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    throw error(`${name} must be an array of strings`);
  return value as string[];
}

/** The name of a client that gave none: the host (or private-use scheme) of its first redirect URI. */
function defaultName(redirectUris: readonly string[]): string {
  const [first] = redirectUris;
  if (first === undefined) return "Registered client";
  try {
    const url = new URL(first);
    return (url.host || url.protocol.slice(0, -1)).slice(0, 100);
  } catch {
    return "Registered client";
  }
}

/**
 * RFC 7591 client metadata as the registry's input: a public client (`token_endpoint_auth_method`
 * `none`, the default here; any other is refused), `response_types` at most `code`, `grant_types`
 * by default `authorization_code` (RFC 7591 §2), `scope` by default the standard scopes and never
 * one the provider does not offer, `client_name` by default its redirect URI's host. Metadata the
 * provider does not use (`logo_uri`, `contacts`, …) is ignored, as RFC 7591 §2 asks.
 */
export function registrationInput(ctx: ProviderContext, body: unknown): OAuthClientInput {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw metadataError("the body must be a JSON object of client metadata (RFC 7591)");
  const fields = body as Record<string, unknown>;
  const method = text(fields, "token_endpoint_auth_method") ?? "none";
  if (method !== "none")
    throw metadataError(
      `token_endpoint_auth_method ${method} is not offered: registration makes public clients only (none)`,
    );
  const responseTypes = strings(fields, "response_types");
  if (responseTypes?.some((type) => type !== "code"))
    throw metadataError("response_types may only hold code");
  const redirectUris =
    strings(fields, "redirect_uris", (description) => new OAuthError("invalid_redirect_uri", description)) ??
    [];
  const asked = scopeList(text(fields, "scope"));
  const scopes = asked.length > 0 ? asked : [...STANDARD_SCOPES];
  checkProviderScopes(ctx, scopes);
  return parseClientInput({
    name: text(fields, "client_name") ?? defaultName(redirectUris),
    confidential: false,
    redirectUris,
    grantTypes: strings(fields, "grant_types") ?? ["authorization_code"],
    scopes,
  });
}

/**
 * Counts one registration request of the client's IP, in the core's cooldown store, against the
 * core's per-IP `ipLimits.registrations` budget (default 20 an hour; counted apart from account
 * registrations; off with `ipLimits.enabled: false`). Every request counts, refused ones too.
 * Answers the 429 to send, or null within the budget.
 */
async function overRegistrationBudget(
  ctx: ProviderContext,
  meta: RequestContext,
): Promise<HttpResponse | null> {
  const { enabled, registrations } = ctx.auth.options.ipLimits;
  const bucket = enabled ? ipBucket(meta.ip, meta.untrustedProxy === true) : null;
  if (bucket === null) return null;
  const { count, remainingMs } = await ctx.auth.options.stores.cooldowns.hit(
    `oauth-provider:register:${bucket}`,
    registrations.windowSeconds * 1000,
  );
  if (count <= registrations.max) return null;
  const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
  return oauthJson(
    429,
    {
      error: "temporarily_unavailable",
      error_description: `too many registrations from this address: retry in ${seconds} seconds`,
    },
    { "retry-after": String(seconds) },
  );
}

/** The JSON body; malformed JSON is `invalid_client_metadata` (a wrong content type or size stays the core's 415 or 413). */
async function metadataOf(input: RouteInput<"none">): Promise<unknown> {
  try {
    return await input.body<unknown>();
  } catch (error) {
    if (error instanceof ValidationError) throw metadataError("the body is not valid JSON");
    throw error;
  }
}

/**
 * `POST <prefix>/oauth2/register` (RFC 7591), mounted only while `allowDynamicRegistration`:
 * registers a public client (`registrationInput`), `dynamic` in the store, and answers 201 with
 * its metadata as registered. Errors in RFC 7591 §3.2.2's JSON; 429 past the per-IP budget.
 */
export async function register(ctx: ProviderContext, input: RouteInput<"none">): Promise<HttpResponse> {
  const limited = await overRegistrationBudget(ctx, input.meta);
  if (limited !== null) return limited;
  try {
    const metadata = registrationInput(ctx, await metadataOf(input));
    const { client } = await ctx.clients.create(metadata, { dynamic: true });
    return oauthJson(201, {
      client_id: client.clientId,
      client_id_issued_at: Math.floor(client.createdAt / 1000),
      client_name: client.name,
      redirect_uris: client.redirectUris,
      grant_types: client.grantTypes,
      response_types: client.grantTypes.includes("authorization_code") ? ["code"] : [],
      token_endpoint_auth_method: "none",
      scope: client.scopes.join(" "),
    });
  } catch (error) {
    if (error instanceof OAuthError) return oauthJson(error.status, error.toJSON());
    throw error;
  }
}

/** The registration route's OpenAPI operation. */
export const REGISTRATION_OPERATION = {
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: {
          type: "object",
          properties: {
            redirect_uris: { type: "array", items: { type: "string" } },
            client_name: { type: "string" },
            grant_types: { type: "array", items: { type: "string" } },
            response_types: { type: "array", items: { type: "string", enum: ["code"] } },
            scope: { type: "string" },
            token_endpoint_auth_method: { type: "string", enum: ["none"] },
          },
        },
      },
    },
  },
  responses: {
    201: {
      description: "The registered public client: `client_id`, `client_id_issued_at` and its metadata.",
      content: { "application/json": { schema: { type: "object", required: ["client_id"] } } },
    },
    400: {
      description: "RFC 7591 `invalid_client_metadata` or `invalid_redirect_uri`.",
      content: { "application/json": { schema: { type: "object", required: ["error"] } } },
    },
    429: { description: "Too many registrations from this address (`Retry-After`)." },
  },
} as const;
