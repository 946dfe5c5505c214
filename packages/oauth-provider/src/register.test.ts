import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeAndApprove, codeFlow, startProvider, type TestProvider } from "./test-provider.js";

const REDIRECT = "http://127.0.0.1:8765/callback";
let provider: TestProvider;

beforeAll(async () => {
  provider = await startProvider({ allowDynamicRegistration: true });
});
afterAll(() => provider.close());

/** RFC 7591 registration with openid-client, as an MCP client or a CLI does it. */
const registration = (target: TestProvider, metadata: Partial<client.ClientMetadata>) =>
  client.dynamicClientRegistration(new URL(target.issuer), metadata, undefined, {
    execute: [client.allowInsecureRequests],
  });

/** A raw registration request: status, body and headers. */
async function post(target: TestProvider, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${target.issuer}/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, response };
}

describe("dynamic client registration (RFC 7591)", () => {
  it("openid-client registers a public client, then runs the code flow with it (PKCE, refresh)", async () => {
    const config = await registration(provider, {
      redirect_uris: [REDIRECT],
      client_name: "An MCP client",
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
      scope: "openid email projects:read",
      logo_uri: "https://mcp.example.test/logo.png",
    });
    const metadata = config.clientMetadata();
    expect(metadata).toMatchObject({
      client_id: expect.stringMatching(/^pcc_/),
      client_id_issued_at: expect.any(Number),
      client_name: "An MCP client",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "openid email projects:read",
    });
    expect(metadata.client_secret).toBeUndefined();
    const stored = await provider.stores.oauth.getOAuthClient(metadata.client_id);
    expect(stored).toMatchObject({ dynamic: true, secretHash: null, name: "An MCP client" });

    const flow = await codeFlow(config, { redirect_uri: REDIRECT, scope: "openid email projects:read" });
    const callback = await authorizeAndApprove(provider, flow.url);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ sub: provider.user.id, aud: metadata.client_id });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).toBeTruthy();
    const verified = await provider.auth.oauthProvider?.verifyAccessToken(refreshed.access_token, {
      audience: metadata.client_id,
      scopes: ["projects:read"],
    });
    expect(verified).toMatchObject({ userId: provider.user.id, clientId: metadata.client_id });
  });

  it("the defaults: public, authorization_code only, the standard scopes, named after its redirect URI; CORS open", async () => {
    const { status, body, response } = await post(
      provider,
      JSON.stringify({ redirect_uris: ["com.example.app:/callback"] }),
      { origin: "https://elsewhere.example.test" },
    );
    expect(status).toBe(201);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(body).toEqual({
      client_id: expect.stringMatching(/^pcc_/),
      client_id_issued_at: Math.floor(provider.clock.now() / 1000),
      client_name: "com.example.app",
      redirect_uris: ["com.example.app:/callback"],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "openid profile email offline_access",
    });
  });

  it("refuses a confidential client, a foreign scope, client_credentials and another response type: invalid_client_metadata", async () => {
    await expect(
      registration(provider, {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    ).rejects.toMatchObject({ error: "invalid_client_metadata" });
    const refusals = [
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_post" },
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 7 },
      { redirect_uris: [REDIRECT], scope: "openid admin:everything" },
      { redirect_uris: [REDIRECT], grant_types: ["client_credentials"] },
      { redirect_uris: [REDIRECT], grant_types: ["password"] },
      { redirect_uris: [REDIRECT], response_types: ["code", "token"] },
      { redirect_uris: [REDIRECT], client_name: "" },
      [{ redirect_uris: [REDIRECT] }],
    ];
    for (const metadata of refusals) {
      const { status, body } = await post(provider, JSON.stringify(metadata));
      expect([status, body.error], JSON.stringify(metadata)).toEqual([400, "invalid_client_metadata"]);
      expect(body.error_description).toEqual(expect.any(String));
    }
    const malformed = await post(provider, "{ not json");
    expect([malformed.status, malformed.body.error]).toEqual([400, "invalid_client_metadata"]);
  });

  it("refuses a bad redirect URI: invalid_redirect_uri, and stores nothing", async () => {
    const before = await provider.stores.oauth.listOAuthClients({ limit: 1000 });
    await expect(
      registration(provider, { redirect_uris: ["http://rp.example.test/callback"] }),
    ).rejects.toMatchObject({ error: "invalid_redirect_uri" });
    for (const redirectUris of [
      ["https://rp.example.test/callback#fragment"],
      ["https://user:pass@rp.example.test/callback"],
      ["javascript:alert(1)"],
      "https://rp.example.test/callback",
      [],
    ]) {
      const { status, body } = await post(provider, JSON.stringify({ redirect_uris: redirectUris }));
      expect([status, body.error], JSON.stringify(redirectUris)).toEqual([400, "invalid_redirect_uri"]);
    }
    expect(await provider.stores.oauth.listOAuthClients({ limit: 1000 })).toEqual(before);
  });

  it("registration off: the route is not mounted (404) and discovery names no registration_endpoint", async () => {
    const off = await startProvider();
    try {
      const response = await fetch(`${off.issuer}/oauth2/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [REDIRECT] }),
      });
      expect(response.status).toBe(404);
      const discovered = await client.discovery(new URL(off.issuer), "cli", undefined, client.None(), {
        execute: [client.allowInsecureRequests],
      });
      expect(discovered.serverMetadata().registration_endpoint).toBeUndefined();
      await expect(registration(off, { redirect_uris: [REDIRECT] })).rejects.toThrow();
      const on = await client.discovery(new URL(provider.issuer), "cli", undefined, client.None(), {
        execute: [client.allowInsecureRequests],
      });
      expect(on.serverMetadata().registration_endpoint).toBe(`${provider.issuer}/oauth2/register`);
      const paths = async (target: TestProvider) =>
        Object.keys(
          ((await (await fetch(`${target.issuer}/openapi.json`)).json()) as { paths: object }).paths,
        );
      expect(await paths(provider)).toContain("/api/auth/oauth2/register");
      expect(await paths(off)).not.toContain("/api/auth/oauth2/register");
    } finally {
      await off.close();
    }
  });
});

describe("registrations per IP", () => {
  it("the core's ipLimits.registrations budget per client IP, refused requests counted: 429 with Retry-After past it", async () => {
    const limited = await startProvider(
      { allowDynamicRegistration: true },
      { trustProxy: 1, ipLimits: { registrations: { max: 2, windowSeconds: 3600 } } },
    );
    try {
      const from = (ip: string, metadata: unknown = { redirect_uris: [REDIRECT] }) =>
        post(limited, JSON.stringify(metadata), { "x-forwarded-for": ip });
      expect((await from("203.0.113.7")).status).toBe(201);
      expect((await from("203.0.113.7", { redirect_uris: ["http://x.test/"] })).status).toBe(400);
      const over = await from("203.0.113.7");
      expect([over.status, over.body.error]).toEqual([429, "temporarily_unavailable"]);
      expect(Number(over.response.headers.get("retry-after"))).toBeGreaterThan(3500);
      expect((await from("203.0.113.8")).status).toBe(201);
      // IPv6: one /64 is one client.
      expect((await from("2001:db8:1:2::1")).status).toBe(201);
      expect((await from("2001:db8:1:2:ffff::9")).status).toBe(201);
      expect((await from("2001:db8:1:2::3")).status).toBe(429);
      expect((await from("2001:db8:1:3::1")).status).toBe(201);
    } finally {
      await limited.close();
    }
  });
});
