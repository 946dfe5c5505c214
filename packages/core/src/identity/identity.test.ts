import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { AuthError } from "../errors.js";
import { identityProviderSchema } from "../options/identity-provider-options.js";
import type { AuthOptionFields } from "../options/options.js";
import { systemClock as clock } from "../ports/clock.js";
import { parseReturnTo, redirectUriOf } from "./flow.js";
import { createRelyingParty } from "./relying-party.js";

const SECRET = "identity-secret-DxJl18Vn5lnNDIkmnuZtmWQwv9rWpETJ7a_XQcFO3y4";
const github = { type: "github", clientId: "gh-client", clientSecret: "gh-secret" } as const;

const build = (overrides: Omit<Partial<AuthOptionFields>, "email">) =>
  createAuth({
    secret: SECRET,
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    email: { enabled: false },
    appOrigin: "https://app.example.test",
    ...overrides,
  });

/** A fetch that answers from `routes` by URL and records what was asked. */
function stubFetch(routes: Record<string, unknown>) {
  const asked: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    const url = input instanceof Request ? input.url : String(input);
    asked.push(url);
    const body = routes[url.split("?")[0] ?? ""];
    if (body === undefined) return new Response("not found", { status: 404 });
    return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  };
  return { fetch: fetch as typeof globalThis.fetch, asked };
}

describe("identity providers", () => {
  it("options - providers need stores.identities and appOrigin; names are unique; named errors", () => {
    const { identities: _, ...withoutIdentities } = createMemoryStores({ sweepIntervalMs: 0 });
    expect(() => build({ stores: withoutIdentities, identityProviders: [github] })).toThrow(
      /"stores.identities" is required while identityProviders are configured/,
    );
    expect(() => build({ appOrigin: undefined, identityProviders: [github] })).toThrow(
      /"appOrigin" is required/,
    );
    expect(() => build({ identityProviders: [github, github] })).toThrow(
      /"identityProviders" must have unique names/,
    );
    expect(() => build({ identityProviders: [{ ...github, name: "Git Hub" }] })).toThrow(
      /"identityProviders.0.name" must be 1-32 lower-case/,
    );
    expect(() =>
      build({
        identityProviders: [{ type: "oidc", issuer: "http://idp.test", clientId: "a", clientSecret: "b" }],
      }),
    ).toThrow(/"identityProviders.0.issuer" must be https/);
    expect(() =>
      build({ identityProviders: [{ type: "entra", tenantId: "common", clientId: "a", clientSecret: "b" }] }),
    ).toThrow(/"identityProviders.0.tenantId" must be one tenant/);
    expect(() => build({ identityProviders: [{ type: "saml" } as never] })).toThrow(/identityProviders.0/);
    // Without providers nothing is needed, and the list is empty.
    expect(build({}).identityProviders.list()).toEqual([]);
  });

  it("options - defaults: names by type, scopes openid email profile (GitHub: read:user user:email)", () => {
    const oidc = identityProviderSchema.parse({
      type: "oidc",
      issuer: "https://idp.test",
      clientId: "a",
      clientSecret: "b",
    });
    expect(oidc).toMatchObject({
      name: "oidc",
      scopes: ["openid", "email", "profile"],
      allowInsecureRequests: false,
    });
    expect(identityProviderSchema.parse(github)).toMatchObject({
      name: "github",
      scopes: ["read:user", "user:email"],
    });
    const auth = build({
      identityProviders: [
        github,
        { type: "google", clientId: "g", clientSecret: "s", displayName: "Google Workspace" },
      ],
    });
    expect(auth.identityProviders.list()).toEqual([
      { name: "github", displayName: "GitHub" },
      { name: "google", displayName: "Google Workspace" },
    ]);
  });

  it("admin.deleteUser - also removes the user's identity-provider links, so the identity is free again", async () => {
    const stores = createMemoryStores({ sweepIntervalMs: 0 });
    const auth = build({ stores, identityProviders: [github] });
    const user = await auth.host.createUser(
      {},
      { email: "gone@example.test", identityProviders: ["github"] },
    );
    const link = {
      provider: "github",
      issuer: "https://github.com",
      subject: "7",
      email: null,
      createdAt: 1,
    };
    await stores.identities.link({ ...link, userId: user.id });
    await auth.host.deleteUser({}, user.id);
    expect(await stores.identities.listByUser(user.id)).toEqual([]);
    expect(await stores.identities.findBySubject("https://github.com", "7")).toBeNull();
  });

  it("returnTo - only a path on appOrigin; the redirect URI is <apiOrigin or appOrigin><prefix>/oauth/<name>/callback", () => {
    const origin = "https://app.example.test";
    expect(parseReturnTo(origin, undefined)).toBe("/");
    expect(parseReturnTo(origin, "/settings?tab=security#x")).toBe("/settings?tab=security#x");
    for (const bad of [
      "https://evil.test/",
      "//evil.test",
      "/\\evil.test",
      "settings",
      "/a b",
      "/x\u0000",
      "/%0d%0a",
      "/.//evil.test",
      "/a/..//evil.test/x?y=1",
      "/%2e%2e//evil.test",
    ]) {
      if (bad === "/%0d%0a") expect(parseReturnTo(origin, bad)).toBe("/%0d%0a");
      else expect(() => parseReturnTo(origin, bad), bad).toThrow(AuthError);
    }
    expect(redirectUriOf({ appOrigin: `${origin}/`, basePath: "/api/auth" }, "github")).toBe(
      "https://app.example.test/api/auth/oauth/github/callback",
    );
    expect(
      redirectUriOf({ appOrigin: origin, apiOrigin: "https://api.example.test", basePath: "/auth" }, "oidc"),
    ).toBe("https://api.example.test/auth/oauth/oidc/callback");
  });

  it("presets - GitHub: OAuth 2.0 with PKCE S256 and no nonce; the user and primary address from its API", async () => {
    const { fetch, asked } = stubFetch({
      "https://github.com/login/oauth/access_token": { access_token: "gho_token", token_type: "bearer" },
      "https://api.github.com/user": { id: 4242, login: "octo", name: "Octo Cat" },
      "https://api.github.com/user/emails": [
        { email: "old@example.test", primary: false, verified: true },
        { email: "Octo@Example.test", primary: true, verified: true },
      ],
    });
    const party = createRelyingParty(identityProviderSchema.parse({ ...github, fetch }), { clock });
    expect(party.displayName).toBe("GitHub");
    const start = await party.authorizationUrl({
      redirectUri: "https://app.test/cb",
      state: "s1",
      fresh: false,
    });
    const url = new URL(start.url);
    expect(`${url.origin}${url.pathname}`).toBe("https://github.com/login/oauth/authorize");
    expect(url.searchParams.get("scope")).toBe("read:user user:email");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toBeNull();
    expect(start.nonce).toBeNull();
    const identity = await party.exchange({
      callbackUrl: new URL("https://app.test/cb?code=abc&state=s1"),
      state: "s1",
      codeVerifier: start.codeVerifier,
      nonce: null,
      fresh: false,
    });
    expect(identity).toEqual({
      issuer: "https://github.com",
      subject: "4242",
      email: "Octo@Example.test",
      emailVerified: true,
      name: "Octo Cat",
    });
    expect(asked).toContain("https://api.github.com/user/emails");
  });

  it("presets - Google and Entra are found by discovery at their issuers; an unreachable issuer is IDENTITY_PROVIDER_FAILURE", async () => {
    for (const [options, issuer] of [
      [{ type: "google" }, "https://accounts.google.com"],
      [
        { type: "entra", tenantId: "contoso.onmicrosoft.com" },
        "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0",
      ],
    ] as const) {
      const { fetch, asked } = stubFetch({
        [`${issuer}/.well-known/openid-configuration`]: {
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/keys`,
        },
      });
      const party = createRelyingParty(
        identityProviderSchema.parse({ ...options, clientId: "c", clientSecret: "s", fetch }),
        { clock },
      );
      const start = await party.authorizationUrl({
        redirectUri: "https://app.test/cb",
        state: "st",
        fresh: true,
      });
      const url = new URL(start.url);
      expect(asked[0]).toBe(`${issuer}/.well-known/openid-configuration`);
      expect(`${url.origin}${url.pathname}`).toBe(`${issuer}/authorize`);
      expect(url.searchParams.get("nonce")).toBe(start.nonce);
      expect(url.searchParams.get("prompt")).toBe("login");
      expect(url.searchParams.get("max_age")).toBe("0");
    }
    const down = createRelyingParty(
      identityProviderSchema.parse({
        type: "oidc",
        issuer: "https://idp.test",
        clientId: "c",
        clientSecret: "s",
        fetch: async () => {
          throw new TypeError("fetch failed");
        },
      }),
      { clock },
    );
    await expect(
      down.authorizationUrl({ redirectUri: "https://a/cb", state: "s", fresh: false }),
    ).rejects.toMatchObject({
      code: "IDENTITY_PROVIDER_FAILURE",
    });
  });
});
