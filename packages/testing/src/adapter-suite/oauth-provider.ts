// The OAuth 2.1 / OpenID provider through each adapter, over real HTTP with openid-client 6 as the
// relying party: discovery and the JWKS, CORS on the token endpoint, the code flow (consent,
// client_secret_basic and client_secret_post, ID token, userinfo), refresh rotation, revocation
// and introspection, a form body the host framework parsed first, the refusals, and 20 concurrent
// redemptions of one code and refreshes with one refresh token.
import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import type { HttpReply } from "../http-client.js";
import { expectError } from "./fixture.js";
import {
  approvedCode,
  basicAuth,
  basicCredentials,
  bootProvider,
  browse,
  EMAIL,
  expectSignedByServedKey,
  FORM_TYPE,
  ISSUER,
  lastSentTo,
  MACHINE,
  type OAuthProviderSuiteOptions,
  type ProviderApp,
  REDIRECT_URI,
  startCodeFlow,
  WEB_APP,
} from "./oauth-provider-fixture.js";

export type {
  OAuthProviderSetup,
  OAuthProviderSuiteOptions,
  OAuthSuiteClient,
} from "./oauth-provider-fixture.js";

const OTHER_ORIGIN = "https://other.example";
const SCOPE = "openid profile email projects:read";

/** A test of the area: its name ("<method> <path> - <behaviour>") and body, given the app's boot. */
type ProviderTests = Record<string, (boot: () => Promise<ProviderApp>) => Promise<void>>;

/** `POST <prefix>/oauth2/token` with `form` (x-www-form-urlencoded) and `headers`. */
const postToken = (app: ProviderApp, form: Record<string, string>, headers: Record<string, string> = {}) =>
  app.api("POST", "/oauth2/token", {
    raw: new URLSearchParams(form).toString(),
    headers: { "content-type": FORM_TYPE, ...headers },
  });

/** An answer in RFC 6749's error shape: `status`, JSON `{ error, error_description }`. */
function expectOAuthError(reply: HttpReply, status: number, error: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(reply.body).toEqual({ error, error_description: expect.any(String) });
}

/** Ada's approved code for the web app, redeemed with `method`: the tokens and the relying party. */
async function redeemedCode(app: ProviderApp, method: "basic" | "post", scope = SCOPE) {
  const party = await app.relyingParty(method);
  const { callback, checks } = await approvedCode(app, party, scope);
  const tokens = await client.authorizationCodeGrant(party.config, callback, checks);
  return { party, tokens };
}

/** The area's tests through one adapter, each on its own app. */
export const oauthProviderTests: ProviderTests = {
  "GET /.well-known/openid-configuration - the issuer is the app's origin and prefix, every endpoint under it; GET /oauth2/jwks serves public keys":
    async (boot) => {
      const app = await boot();
      const discovery = await app.api("GET", "/.well-known/openid-configuration");
      expect(discovery.status, discovery.text).toBe(200);
      expect(discovery.headers.get("content-type")).toMatch(/^application\/json/);
      expect(discovery.headers.get("access-control-allow-origin")).toBe("*");
      expect(discovery.body).toMatchObject({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/oauth2/authorize`,
        token_endpoint: `${ISSUER}/oauth2/token`,
        userinfo_endpoint: `${ISSUER}/oauth2/userinfo`,
        jwks_uri: `${ISSUER}/oauth2/jwks`,
        revocation_endpoint: `${ISSUER}/oauth2/revoke`,
        introspection_endpoint: `${ISSUER}/oauth2/introspect`,
        code_challenge_methods_supported: ["S256"],
        scopes_supported: expect.arrayContaining(["openid", "offline_access", "projects:read"]),
        token_endpoint_auth_methods_supported: expect.arrayContaining([
          "client_secret_basic",
          "client_secret_post",
        ]),
      });
      const jwks = await app.api("GET", "/oauth2/jwks");
      expect(jwks.status, jwks.text).toBe(200);
      expect(jwks.headers.get("access-control-allow-origin")).toBe("*");
      const keys = jwks.body.keys as Record<string, unknown>[];
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(key).toMatchObject({ kid: expect.any(String), alg: expect.stringMatching(/^(ES256|EdDSA)$/) });
        expect(key).not.toHaveProperty("d");
      }
      const algorithms = discovery.body.id_token_signing_alg_values_supported;
      expect(algorithms).toEqual(expect.arrayContaining(keys.map((key) => key.alg)));
    },

  "OPTIONS /oauth2/token - a CORS preflight answers 204 with access-control-allow-origin *; a token request from another origin is served, not refused as CSRF":
    async (boot) => {
      const app = await boot();
      const preflight = await app.api("OPTIONS", "/oauth2/token", {
        headers: {
          origin: OTHER_ORIGIN,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
      expect(preflight.status, preflight.text).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      // Ada's cookie rides along, as a browser would send it: the route reads none, so no CSRF check.
      const reply = await postToken(
        app,
        { grant_type: "client_credentials", scope: "projects:read" },
        { origin: OTHER_ORIGIN, cookie: app.cookie, authorization: basicAuth(MACHINE.id, MACHINE.secret) },
      );
      expect(reply.status, reply.text).toBe(200);
      expect(reply.headers.get("access-control-allow-origin")).toBe("*");
      expect(reply.headers.get("cache-control")).toBe("no-store");
      expect(reply.body).toMatchObject({ token_type: "Bearer", scope: "projects:read" });
      const verified = await app.auth.oauthProvider?.verifyAccessToken(String(reply.body.access_token), {
        audience: MACHINE.id,
        scopes: ["projects:read"],
      });
      expect(verified).toMatchObject({ subject: MACHINE.id, userId: null, clientId: MACHINE.id });
    },

  "GET /oauth2/authorize - consent, then client_secret_basic redeems the code: the ID token is signed by a served key; GET /oauth2/userinfo answers Ada":
    async (boot) => {
      const app = await boot();
      const { party, tokens } = await redeemedCode(app, "basic");
      const sent = lastSentTo(party, "token");
      expect(basicCredentials(sent.headers.get("authorization"))).toEqual([WEB_APP.id, WEB_APP.secret]);
      expect(sent.headers.get("content-type")).toMatch(/^application\/x-www-form-urlencoded/);
      expect(sent.form.get("client_secret")).toBeNull();
      expect(tokens.scope).toBe(SCOPE);
      expect(tokens.refresh_token).toBeTruthy();
      expect(tokens.claims()).toMatchObject({ iss: ISSUER, aud: WEB_APP.id, sub: app.user.id, email: EMAIL });
      await expectSignedByServedKey(app, String(tokens.id_token));
      await expectSignedByServedKey(app, tokens.access_token);
      const info = await client.fetchUserInfo(party.config, tokens.access_token, app.user.id);
      expect(info).toMatchObject({ sub: app.user.id, email: EMAIL, email_verified: false });
    },

  "POST /oauth2/token - client_secret_post redeems the code; a refresh rotates the refresh token; reusing the old one revokes the grant":
    async (boot) => {
      const app = await boot();
      const { party, tokens } = await redeemedCode(app, "post");
      const sent = lastSentTo(party, "token");
      expect(sent.headers.get("authorization")).toBeNull();
      expect(sent.form.get("client_id")).toBe(WEB_APP.id);
      expect(sent.form.get("client_secret")).toBe(WEB_APP.secret);
      const old = String(tokens.refresh_token);
      const rotated = await client.refreshTokenGrant(party.config, old);
      expect(rotated.refresh_token).toBeTruthy();
      expect(rotated.refresh_token).not.toBe(old);
      expect(rotated.access_token).not.toBe(tokens.access_token);
      expect(lastSentTo(party, "token").form.get("grant_type")).toBe("refresh_token");
      await expect(client.refreshTokenGrant(party.config, old)).rejects.toMatchObject({
        error: "invalid_grant",
      });
      await expect(
        client.refreshTokenGrant(party.config, String(rotated.refresh_token)),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    },

  "POST /oauth2/introspect and /oauth2/revoke - live tokens introspect active; after the refresh token's revocation neither is, and userinfo answers 401":
    async (boot) => {
      const app = await boot();
      const { party, tokens } = await redeemedCode(app, "basic", "openid projects:read");
      const refreshToken = String(tokens.refresh_token);
      expect(await client.tokenIntrospection(party.config, tokens.access_token)).toMatchObject({
        active: true,
        client_id: WEB_APP.id,
        sub: app.user.id,
        scope: "openid projects:read",
        iss: ISSUER,
      });
      expect(await client.tokenIntrospection(party.config, refreshToken)).toMatchObject({
        active: true,
        token_type: "refresh_token",
      });
      await client.tokenRevocation(party.config, refreshToken);
      expect(lastSentTo(party, "revoke").form.get("token")).toBe(refreshToken);
      expect(await client.tokenIntrospection(party.config, tokens.access_token)).toEqual({ active: false });
      expect(await client.tokenIntrospection(party.config, refreshToken)).toEqual({ active: false });
      const info = await app.api("GET", "/oauth2/userinfo", { bearer: tokens.access_token });
      expectOAuthError(info, 401, "invalid_token");
      await expect(client.refreshTokenGrant(party.config, refreshToken)).rejects.toMatchObject({
        error: "invalid_grant",
      });
    },

  "GET /oauth2/authorize - a redirect URI not the client's answers 400 invalid_request and sends the browser nowhere":
    async (boot) => {
      const app = await boot();
      const party = await app.relyingParty("basic");
      const { url } = await startCodeFlow(party, SCOPE, "https://attacker.example.test/callback");
      const response = await browse(app, url);
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.json()).toEqual({
        error: "invalid_request",
        error_description: expect.any(String),
      });
    },

  "POST /oauth2/token - a JSON body instead of a form answers 415 UNSUPPORTED_MEDIA_TYPE in the core's error shape":
    async (boot) => {
      const app = await boot();
      const reply = await app.api("POST", "/oauth2/token", {
        body: { grant_type: "client_credentials", scope: "projects:read" },
        headers: { authorization: basicAuth(MACHINE.id, MACHINE.secret) },
      });
      expectError(reply, 415, "UNSUPPORTED_MEDIA_TYPE");
    },

  "requireOAuth - the host's resource route takes the provider's token with the scope; without one 401, another audience's 401, a session's access token 401":
    async (boot) => {
      const app = await boot();
      const issued = await postToken(
        app,
        { grant_type: "client_credentials", scope: "projects:read" },
        { authorization: basicAuth(MACHINE.id, MACHINE.secret) },
      );
      const token = String(issued.body.access_token);
      const reports = (authorization?: string) =>
        app.call("reports", "GET", "/host/reports", { headers: authorization ? { authorization } : {} });
      const served = await reports(`Bearer ${token}`);
      expect(served.status, served.text).toBe(200);
      expect(served.body).toEqual({ subject: MACHINE.id, scopes: ["projects:read"] });
      const none = await reports();
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe("Bearer");
      const session = await reports(`Bearer ${app.accessToken}`);
      expect(session.status).toBe(401);
      expect(session.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
      expect(session.body).toMatchObject({ error: "invalid_token" });
    },
  "POST /oauth2/token - a wrong client secret answers 401 invalid_client with WWW-Authenticate, by Basic and in the form":
    async (boot) => {
      const app = await boot();
      const form = { grant_type: "client_credentials", scope: "projects:read" };
      const basic = await postToken(app, form, {
        authorization: basicAuth(MACHINE.id, "not-the-secret-0123456789"),
      });
      expectOAuthError(basic, 401, "invalid_client");
      expect(basic.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      const posted = await postToken(app, {
        ...form,
        client_id: MACHINE.id,
        client_secret: "not-the-secret-0123",
      });
      expectOAuthError(posted, 401, "invalid_client");
      expect(posted.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      expect(
        (await postToken(app, form, { authorization: basicAuth(MACHINE.id, MACHINE.secret) })).status,
      ).toBe(200);
    },
};

/** `count` requests of `send`, all sent at once: their answers. */
const atOnce = (count: number, send: () => Promise<HttpReply>) =>
  Promise.all(Array.from({ length: count }, send));

/** The concurrent requests: one token endpoint's answers as the stores' own locking orders them. */
const oauthProviderRaces: ProviderTests = {
  "POST /oauth2/token - 20 concurrent redemptions of one code: at most one answers 200, the rest 400 invalid_grant; the replay revokes what the code issued":
    async (boot) => {
      const app = await boot();
      const party = await app.relyingParty("basic");
      const { callback, checks } = await approvedCode(app, party, SCOPE);
      const code = callback.searchParams.get("code") ?? "";
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const authorization = basicAuth(WEB_APP.id, WEB_APP.secret);
      const form = {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: checks.pkceCodeVerifier,
      };
      const replies = await atOnce(20, () => postToken(app, form, { authorization }));
      const served = replies.filter((reply) => reply.status === 200);
      expect(served.length).toBeLessThanOrEqual(1);
      for (const reply of replies) if (reply.status !== 200) expectOAuthError(reply, 400, "invalid_grant");
      for (const tokens of served.map((reply) => reply.body)) {
        expect(tokens).toMatchObject({ token_type: "Bearer", scope: SCOPE });
        const refreshed = await postToken(
          app,
          { grant_type: "refresh_token", refresh_token: String(tokens.refresh_token) },
          { authorization },
        );
        expectOAuthError(refreshed, 400, "invalid_grant");
        const accessToken = String(tokens.access_token);
        expect(await client.tokenIntrospection(party.config, accessToken)).toEqual({ active: false });
      }
    },

  "POST /oauth2/token - 20 concurrent refreshes with one refresh token: exactly one rotates, the rest 400 invalid_grant; the reuse revokes the grant, the rotated token with it":
    async (boot) => {
      const app = await boot();
      const { party, tokens } = await redeemedCode(app, "basic");
      const old = String(tokens.refresh_token);
      const authorization = basicAuth(WEB_APP.id, WEB_APP.secret);
      const form = { grant_type: "refresh_token", refresh_token: old };
      const replies = await atOnce(20, () => postToken(app, form, { authorization }));
      const served = replies.filter((reply) => reply.status === 200);
      expect(served, replies.map((reply) => reply.text).join("\n")).toHaveLength(1);
      for (const reply of replies) if (reply.status !== 200) expectOAuthError(reply, 400, "invalid_grant");
      const rotated = served[0]?.body ?? {};
      expect(rotated).toMatchObject({ token_type: "Bearer", scope: SCOPE });
      expect(rotated.refresh_token).not.toBe(old);
      const again = await postToken(
        app,
        { grant_type: "refresh_token", refresh_token: String(rotated.refresh_token) },
        { authorization },
      );
      expectOAuthError(again, 400, "invalid_grant");
      for (const accessToken of [tokens.access_token, String(rotated.access_token)])
        expect(await client.tokenIntrospection(party.config, accessToken)).toEqual({ active: false });
    },
};

/**
 * The host app parsed the form before the auth routes (`startBehindFormParser`): the code is
 * redeemed, the refresh token rotated and the grant introspected, each posted as a parsed form.
 */
async function parsedFormTest(boot: () => Promise<ProviderApp>): Promise<void> {
  const app = await boot();
  const { party, tokens } = await redeemedCode(app, "post", "openid email");
  expect(tokens.claims()).toMatchObject({ sub: app.user.id, email: EMAIL });
  const rotated = await client.refreshTokenGrant(party.config, String(tokens.refresh_token));
  expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
  expect(await client.tokenIntrospection(party.config, rotated.access_token)).toMatchObject({
    active: true,
    client_id: WEB_APP.id,
  });
  const wrong = await postToken(app, {
    grant_type: "refresh_token",
    refresh_token: "x",
    client_id: WEB_APP.id,
  });
  expectOAuthError(wrong, 401, "invalid_client");
}

/**
 * The OAuth provider (`@portcullis/oauth-provider`, passed in by `oauthProvider`) through an
 * adapter, without transcripts (its tokens and keys are random): each test boots its own auth on
 * fresh `createStores` with the suite's clients and a signed-in user, and drives it over HTTP with
 * openid-client. The issuer is `https://app.example.test/api/auth`; the relying party's requests go
 * to the host app on 127.0.0.1. With `startBehindFormParser`, the token endpoint is also shown to
 * work behind the framework's own form parser.
 */
export function runOAuthProviderAdapterSuite(options: OAuthProviderSuiteOptions): void {
  describe(`oauth provider: ${options.name}`, () => {
    const boot = bootProvider(options);
    const tests = { ...oauthProviderTests, ...oauthProviderRaces };
    for (const [name, test] of Object.entries(tests)) it(name, () => test(boot));
    const { startBehindFormParser } = options;
    it.skipIf(startBehindFormParser === undefined)(
      "POST /oauth2/token - behind the host framework's form parser, the code, the refresh and introspection are still served",
      () => parsedFormTest(bootProvider(options, startBehindFormParser)),
    );
  });
}
