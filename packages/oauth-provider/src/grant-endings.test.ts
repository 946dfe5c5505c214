import type { Auth, SecurityEvent } from "@portcullis/core";
import * as client from "openid-client";
import { afterEach, describe, expect, it } from "vitest";
import { endsGrants } from "./provider.js";
import {
  authorizeAndApprove,
  browse,
  CLIENT_SECRET,
  codeFlow,
  relyingParty,
  startProvider,
  type TestProvider,
} from "./test-provider.js";

const REDIRECT = "https://rp.example.test/callback";
const started: TestProvider[] = [];
afterEach(async () => {
  for (const provider of started.splice(0)) await provider.close();
});

/** A fresh provider and the web app's tokens for its user, consent given. */
async function grantedTokens() {
  const provider = await startProvider();
  started.push(provider);
  const webApp = await relyingParty(provider, "web-app", CLIENT_SECRET);
  const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email" });
  const callback = await authorizeAndApprove(provider, flow.url);
  const tokens = await client.authorizationCodeGrant(webApp, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });
  return { provider, webApp, tokens };
}

/** What ends the grants, each through the core's own use case. */
const ENDINGS: Record<string, (auth: Auth, provider: TestProvider) => Promise<unknown>> = {
  "an admin's lock": (auth, { user }) => auth.host.lockUser({}, { userId: user.id }),
  "sign out everywhere": async (auth, { session }) =>
    auth.sessions.revokeAll({ principal: await auth.authenticate({ token: session.accessToken }) }),
  "the host ending the user's sessions": (auth, { user }) => auth.host.revokeSessions({}, user.id),
  "the account's deletion": (auth, { user }) => auth.host.deleteUser({}, user.id),
  "a password reset": async (auth, { outbox }) => {
    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    await auth.idle();
    const email = outbox.list().find((entry) => entry.kind === "password-reset");
    const token = /token=([A-Za-z0-9_-]+)/.exec(email?.text ?? "")?.[1] ?? "";
    return auth.resetPassword({ token }, { newPassword: "a brand new passphrase 77" });
  },
};

describe("what ends a user's grants", () => {
  for (const [name, end] of Object.entries(ENDINGS)) {
    it(`${name}: the refresh token is refused and the access token introspects inactive`, async () => {
      const { provider, webApp, tokens } = await grantedTokens();
      await end(provider.auth, provider);
      await expect(client.refreshTokenGrant(webApp, tokens.refresh_token as string)).rejects.toMatchObject({
        error: "invalid_grant",
      });
      expect((await client.tokenIntrospection(webApp, tokens.access_token)).active).toBe(false);
    });
  }

  it("endsGrants - the events that end them, and those that do not", () => {
    const event = (type: SecurityEvent["type"], reason: string | null = null): SecurityEvent => ({
      type,
      time: 0,
      userId: "u",
      sessionId: null,
      ip: null,
      userAgent: null,
      reason,
    });
    expect(endsGrants(event("password_reset.completed"))).toBe(true);
    expect(endsGrants(event("user.deprovisioned", "sessions_ended:2"))).toBe(true);
    expect(endsGrants(event("session.revoked", "revoked_all:3"))).toBe(true);
    expect(endsGrants(event("session.revoked", "revoked_others:3"))).toBe(false);
    expect(endsGrants(event("session.revoked", "logout"))).toBe(false);
    expect(endsGrants(event("login.succeeded"))).toBe(false);
  });

  it("the user withdraws consent under /oauth2/grants: listed before, gone after, its refresh token dead", async () => {
    const { provider, webApp, tokens } = await grantedTokens();
    const headers = { cookie: provider.cookie, origin: provider.origin };
    const listed = await (await fetch(`${provider.issuer}/oauth2/grants`, { headers })).json();
    expect(listed).toMatchObject({
      grants: [{ clientId: "web-app", name: "The web app", scopes: ["openid", "email"] }],
    });
    const withdrawn = await fetch(`${provider.issuer}/oauth2/grants/web-app`, { method: "DELETE", headers });
    expect(await withdrawn.json()).toEqual({ success: true, revoked: 1 });
    expect(await (await fetch(`${provider.issuer}/oauth2/grants`, { headers })).json()).toEqual({
      grants: [],
    });
    await expect(client.refreshTokenGrant(webApp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    // Consent is asked again.
    const again = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email" });
    expect((await browse(provider, again.url)).headers.get("location")).toContain(
      "/oauth/consent?consentId=",
    );
  });

  it("prompt=login sends a signed-in user to sign in again (reauth=1), and the way back does not ask again", async () => {
    const { provider, webApp } = await grantedTokens();
    const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email", prompt: "login" });
    const toLogin = new URL((await browse(provider, flow.url)).headers.get("location") ?? "");
    expect(toLogin.pathname).toBe("/login");
    expect(toLogin.searchParams.get("reauth")).toBe("1");
    const back = new URL(toLogin.searchParams.get("returnTo") ?? "", provider.origin);
    expect(back.searchParams.has("prompt")).toBe(false);
    // Signed in again after the request: the way back issues the code.
    provider.clock.advance(1000);
    const session = await provider.auth.sessions.create({}, { userId: provider.user.id });
    const cookie = `access_token=${session.accessToken}`;
    const done = await fetch(back, { redirect: "manual", headers: { cookie } });
    expect(new URL(done.headers.get("location") ?? "").searchParams.get("code")).toBeTruthy();
    // The old session (signed in before the request) is sent to sign in again.
    const stale = await browse(provider, back);
    expect(new URL(stale.headers.get("location") ?? "").pathname).toBe("/login");
  });
});
