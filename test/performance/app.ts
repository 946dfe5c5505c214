// The Auth the round-trip test measures, and requests to it in process through the core's HTTP
// handler (no server, no sockets: only the stores' own round trips happen).
import {
  type Auth,
  createArgon2Hasher,
  createAuth,
  type HttpHandler,
  type HttpRequest,
  type HttpResponse,
  silentLogger,
} from "@portcullis/core";
import { createOAuthProvider } from "@portcullis/oauth-provider";
import { createSso } from "@portcullis/sso";
import type { TestStores } from "./stores.js";

export const APP_ORIGIN = "http://localhost:3000";
export const PASSWORD = "correct horse battery staple";
/** The resource server the OAuth tokens are asked for (RFC 8707), as the examples' `/api`. */
export const RESOURCE = `${APP_ORIGIN}/api`;
export const OAUTH_CLIENT = {
  clientId: "web-app",
  name: "The web app",
  clientSecret: "round-trips-web-app-client-secret-0123456789",
  redirectUris: ["https://rp.example.test/callback"],
  scopes: ["openid", "offline_access", "projects:read"],
};

/**
 * An Auth on `stores` with what the routes measured need: organizations with a permission, API
 * keys, the OAuth provider and enterprise sign-in with SCIM. Cheap argon2id (the hash is CPU, not
 * a round trip); no emails sent and no login alerts; a cooldown of an hour, so the 429s measured
 * stay inside it however slow the machine.
 */
export function createTestAuth(stores: TestStores): Auth {
  return createAuth({
    secret: "round-trips-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0",
    stores,
    mailer: { send: async () => {} },
    logger: silentLogger,
    appOrigin: APP_ORIGIN,
    allowHeaderAuthentication: true,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { loginAlerts: false, cooldownSeconds: 3600 },
    organizations: { permissions: ["project:read"], memberPermissions: ["project:read"] },
    apiKeys: {},
    oauthProvider: createOAuthProvider({
      stores: { oauth: stores.oauth, signingKeys: stores.signingKeys },
      clients: [OAUTH_CLIENT],
      scopes: ["projects:read"],
    }),
    sso: createSso({
      store: stores.sso,
      scim: stores.scim,
      // The test never reaches the machine's DNS: no domain is verified by a TXT record here.
      resolveTxt: async (name) => {
        throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      },
    }),
  });
}

export interface RequestOptions {
  token?: string;
  /** Sent as JSON, or as is when a string (with `contentType`). */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** A request for `/api/auth<path>` (or `path` itself when it starts elsewhere), as a loopback browser sends it. */
export function request(method: string, path: string, options: RequestOptions = {}): HttpRequest {
  const headers: Record<string, string> = {
    host: "localhost:3000",
    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] = options.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(body));
  }
  const url = path.startsWith("/api/") ? path : `/api/auth${path}`;
  return { method, url, headers, body, remoteAddress: "127.0.0.1" };
}

/** `handler`'s answer to `sent`, which must have `status`: its parsed body (null for none). */
export async function expectStatus(
  handler: HttpHandler,
  sent: HttpRequest,
  status: number,
): Promise<{ body: Record<string, unknown> | null; response: HttpResponse }> {
  const response = await handler.handle(sent);
  if (!response) throw new Error(`no route for ${sent.method} ${sent.url}`);
  const text = response.body === null ? null : String(response.body);
  if (response.status !== status)
    throw new Error(`${sent.method} ${sent.url}: ${response.status} (expected ${status}) ${text}`);
  return { body: text ? (JSON.parse(text) as Record<string, unknown>) : null, response };
}
