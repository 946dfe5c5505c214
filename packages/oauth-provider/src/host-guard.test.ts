import { authenticateOAuth, guardOAuthRequest, type OAuthGuardTarget } from "@portcullis/core";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relyingParty, startProvider, type TestProvider } from "./test-provider.js";

let provider: TestProvider;
let token: string;

beforeAll(async () => {
  provider = await startProvider();
  const machine = await relyingParty(provider, "machine", "the-machine-client-secret-0123456789");
  token = (await client.clientCredentialsGrant(machine, { scope: "projects:read" })).access_token;
});
afterAll(() => provider.close());

const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });

describe("the host's OAuth guard (authenticateOAuth, guardOAuthRequest)", () => {
  it("a token for this audience with the scope passes, and the target gets what it says", async () => {
    const target: OAuthGuardTarget = {};
    const refusal = await guardOAuthRequest(provider.auth, target, bearer(token), {
      audience: "machine",
      scopes: ["projects:read"],
    });
    expect(refusal).toBeUndefined();
    expect(target.oauth).toMatchObject({
      subject: "machine",
      clientId: "machine",
      scopes: ["projects:read"],
    });
  });

  it("no bearer token: 401 with a bare Bearer challenge (RFC 6750 §3.1), pointing to the resource metadata", async () => {
    const { response } = await authenticateOAuth(
      provider.auth,
      { headers: {} },
      {
        audience: "machine",
        resourceMetadata: "https://api.example.test/.well-known/oauth-protected-resource",
      },
    );
    expect(response?.status).toBe(401);
    expect(response?.headers["www-authenticate"]).toBe(
      'Bearer resource_metadata="https://api.example.test/.well-known/oauth-protected-resource"',
    );
  });

  it("a garbage token, another audience, or an ID-token-like JWT: 401 invalid_token", async () => {
    for (const [value, audience] of [
      ["not-a-jwt", "machine"],
      [token, "https://another-api.example.test"],
      [`${token.slice(0, -4)}AAAA`, "machine"],
    ] as const) {
      const { response } = await authenticateOAuth(provider.auth, bearer(value), { audience });
      expect(response?.status, value.slice(0, 12)).toBe(401);
      expect(response?.headers["www-authenticate"]).toMatch(/^Bearer error="invalid_token"/);
      expect(JSON.parse(response?.body ?? "{}")).toMatchObject({ error: "invalid_token" });
    }
  });

  it("a scope the token lacks: 403 insufficient_scope naming the scope needed", async () => {
    const { response } = await authenticateOAuth(provider.auth, bearer(token), {
      audience: "machine",
      scopes: ["projects:write"],
    });
    expect(response?.status).toBe(403);
    expect(response?.headers["www-authenticate"]).toContain('error="insufficient_scope"');
    expect(response?.headers["www-authenticate"]).toContain('scope="projects:write"');
  });

  it("a session's access token is not an OAuth token: 401", async () => {
    const { response } = await authenticateOAuth(provider.auth, bearer(provider.session.accessToken), {
      audience: "machine",
    });
    expect(response?.status).toBe(401);
  });
});

describe("auth.oauthProvider.metadata", () => {
  it("is the discovery document the provider serves, for the host to serve at the origin's root (RFC 8414)", async () => {
    const served = await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json();
    expect(await provider.auth.oauthProvider?.metadata()).toEqual(served);
    expect(served).toMatchObject({ issuer: provider.issuer, code_challenge_methods_supported: ["S256"] });
  });
});
