import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  answerConsent,
  authorizeAndApprove,
  browse,
  CLIENT_SECRET,
  codeFlow,
  relyingParty,
  startProvider,
  type TestProvider,
} from "./test-provider.js";

const REDIRECT = "https://rp.example.test/callback";
let provider: TestProvider;
let webApp: client.Configuration;

beforeAll(async () => {
  provider = await startProvider();
  webApp = await relyingParty(provider, "web-app", CLIENT_SECRET);
});
afterAll(() => provider.close());

/** A code for the web app, approved by the signed-in user, and what redeeming it needs. */
async function approvedCode(scope = "openid profile email projects:read") {
  const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope });
  const callback = await authorizeAndApprove(provider, flow.url);
  return { ...flow, callback };
}

describe("the authorization code flow, driven by openid-client", () => {
  it("code + PKCE: the ID token validates (nonce, iss, aud), userinfo answers the user's claims", async () => {
    const { callback, verifier, state, nonce } = await approvedCode();
    expect(callback.searchParams.get("iss")).toBe(provider.issuer);
    const tokens = await client.authorizationCodeGrant(webApp, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    expect(claims).toMatchObject({
      sub: provider.user.id,
      email: "ada@example.test",
      email_verified: false,
      name: "Ada",
    });
    expect(claims?.auth_time).toBeTypeOf("number");
    expect(tokens.scope).toBe("openid profile email projects:read");
    const info = await client.fetchUserInfo(webApp, tokens.access_token, provider.user.id);
    expect(info).toMatchObject({ sub: provider.user.id, email: "ada@example.test", name: "Ada" });
  });

  it("consent is asked once per client and scope set: the second authorization goes straight back with a code", async () => {
    await approvedCode("openid email");
    const again = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email" });
    const location = (await browse(provider, again.url)).headers.get("location") ?? "";
    expect(new URL(location).origin + new URL(location).pathname).toBe(REDIRECT);
    expect(new URL(location).searchParams.get("code")).toBeTruthy();
  });

  it("refresh: rotation issues a new refresh token; reusing the old one revokes the grant", async () => {
    const { callback, verifier, state, nonce } = await approvedCode();
    const first = await client.authorizationCodeGrant(webApp, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const old = first.refresh_token as string;
    const second = await client.refreshTokenGrant(webApp, old);
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(old);
    await expect(client.refreshTokenGrant(webApp, old)).rejects.toMatchObject({ error: "invalid_grant" });
    // The reuse ended the grant: the newest refresh token is dead too.
    await expect(client.refreshTokenGrant(webApp, second.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    const introspected = await client.tokenIntrospection(webApp, second.access_token);
    expect(introspected.active).toBe(false);
  });

  it("revocation and introspection: a live access token introspects active, and not after its grant is revoked", async () => {
    const { callback, verifier, state, nonce } = await approvedCode("openid projects:read");
    const tokens = await client.authorizationCodeGrant(webApp, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const live = await client.tokenIntrospection(webApp, tokens.access_token);
    expect(live).toMatchObject({
      active: true,
      client_id: "web-app",
      sub: provider.user.id,
      scope: "openid projects:read",
    });
    const refresh = await client.tokenIntrospection(webApp, tokens.refresh_token as string);
    expect(refresh).toMatchObject({ active: true, token_type: "refresh_token" });
    await client.tokenRevocation(webApp, tokens.refresh_token as string);
    expect((await client.tokenIntrospection(webApp, tokens.access_token)).active).toBe(false);
    await expect(client.refreshTokenGrant(webApp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
  });

  it("a public client (PKCE, no secret) on a loopback redirect URI of another port", async () => {
    const cli = await relyingParty(provider, "cli");
    const flow = await codeFlow(cli, {
      redirect_uri: "http://127.0.0.1:50123/callback",
      scope: "openid email",
    });
    const callback = await authorizeAndApprove(provider, flow.url);
    expect(callback.origin).toBe("http://127.0.0.1:50123");
    const tokens = await client.authorizationCodeGrant(cli, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    expect(tokens.claims()?.sub).toBe(provider.user.id);
  });

  it("client credentials: a token for the machine itself, no refresh token, no ID token", async () => {
    const machine = await relyingParty(provider, "machine", "the-machine-client-secret-0123456789");
    const tokens = await client.clientCredentialsGrant(machine, { scope: "projects:read" });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    const verified = await provider.auth.oauthProvider?.verifyAccessToken(tokens.access_token, {
      audience: "machine",
      scopes: ["projects:read"],
    });
    expect(verified).toMatchObject({ subject: "machine", userId: null, clientId: "machine" });
  });

  it("refused consent answers the client with access_denied", async () => {
    const flow = await codeFlow(webApp, {
      redirect_uri: REDIRECT,
      scope: "openid offline_access",
      prompt: "consent",
    });
    const consentPage = (await browse(provider, flow.url)).headers.get("location") ?? "";
    const back = new URL(await answerConsent(provider, consentPage, false));
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe(flow.state);
  });
});
