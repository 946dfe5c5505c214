import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
let provider: TestProvider;
let webApp: client.Configuration;

beforeAll(async () => {
  provider = await startProvider();
  webApp = await relyingParty(provider, "web-app", CLIENT_SECRET);
});
afterAll(() => provider.close());

/** Where the authorization endpoint sends the signed-in browser for `url` with `changes` applied to its query. */
async function authorizeWith(changes: Record<string, string | null>) {
  const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email" });
  for (const [name, value] of Object.entries(changes))
    if (value === null) flow.url.searchParams.delete(name);
    else flow.url.searchParams.set(name, value);
  return browse(provider, flow.url);
}

const errorOf = (response: Response) =>
  new URL(response.headers.get("location") ?? "").searchParams.get("error");

describe("refusals of the authorization endpoint", () => {
  it("no PKCE: the client gets invalid_request", async () => {
    const response = await authorizeWith({ code_challenge: null, code_challenge_method: null });
    expect(response.status).toBe(302);
    expect(errorOf(response)).toBe("invalid_request");
  });

  it("plain PKCE: refused", async () => {
    const response = await authorizeWith({ code_challenge_method: "plain" });
    expect(errorOf(response)).toBe("invalid_request");
  });

  it("a foreign redirect URI: 400, never a redirect", async () => {
    const response = await authorizeWith({ redirect_uri: "https://attacker.example.test/callback" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.json()).toMatchObject({ error: "invalid_request" });
  });

  it("prompt=none without a session: login_required back at the client", async () => {
    const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid", prompt: "none" });
    const response = await browse(provider, flow.url, false);
    expect(errorOf(response)).toBe("login_required");
  });

  it("no session: to the sign-in page, and back to the authorization afterwards", async () => {
    const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid" });
    const location = new URL((await browse(provider, flow.url, false)).headers.get("location") ?? "");
    expect(location.origin + location.pathname).toBe(`${provider.origin}/login`);
    expect(location.searchParams.get("returnTo")).toBe(flow.url.pathname + flow.url.search);
  });
});

describe("refusals of the token endpoint", () => {
  async function code() {
    const flow = await codeFlow(webApp, { redirect_uri: REDIRECT, scope: "openid email" });
    return { ...flow, callback: await authorizeAndApprove(provider, flow.url) };
  }

  it("a replayed code: refused, and what the first redemption issued is revoked", async () => {
    const { callback, verifier, state, nonce } = await code();
    const redeem = { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce };
    const tokens = await client.authorizationCodeGrant(webApp, callback, redeem);
    await expect(client.authorizationCodeGrant(webApp, callback, redeem)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    await expect(client.refreshTokenGrant(webApp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: "invalid_grant",
    });
    expect((await client.tokenIntrospection(webApp, tokens.access_token)).active).toBe(false);
  });

  it("20 concurrent redemptions of one code: at most one gets tokens, and its grant ends revoked", async () => {
    const { callback, verifier, state, nonce } = await code();
    const redeem = { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => client.authorizationCodeGrant(webApp, callback, redeem)),
    );
    for (const result of results)
      if (result.status === "rejected") expect(result.reason).toMatchObject({ error: "invalid_grant" });
    const won = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(won.length).toBeLessThanOrEqual(1);
    for (const tokens of won) {
      await expect(client.refreshTokenGrant(webApp, tokens.refresh_token as string)).rejects.toMatchObject({
        error: "invalid_grant",
      });
    }
  });

  it("a code of another client: invalid_grant", async () => {
    const { callback, verifier, state } = await code();
    // The CLI (a public client) presents the web app's code, as a client that intercepted it would.
    const cli = await relyingParty(provider, "cli");
    await expect(
      client.authorizationCodeGrant(cli, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a wrong PKCE verifier: invalid_grant", async () => {
    const { callback, state } = await code();
    await expect(
      client.authorizationCodeGrant(webApp, callback, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a wrong client secret: invalid_client, 401 with WWW-Authenticate", async () => {
    const { callback, verifier, state } = await code();
    const wrong = await relyingParty(provider, "web-app", "not-the-secret-of-the-web-app-000");
    await expect(
      client.authorizationCodeGrant(wrong, callback, { pkceCodeVerifier: verifier, expectedState: state }),
    ).rejects.toMatchObject({ status: 401 });
    const response = await fetch(`${provider.issuer}/oauth2/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from("web-app:not-the-secret-of-the-web-app-000").toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Basic/);
    expect(await response.json()).toMatchObject({ error: "invalid_client" });
  });

  it("an expired code (past 60 s): invalid_grant", async () => {
    const { callback, verifier, state } = await code();
    provider.clock.advance(61_000);
    try {
      await expect(
        client.authorizationCodeGrant(webApp, callback, { pkceCodeVerifier: verifier, expectedState: state }),
      ).rejects.toMatchObject({ error: "invalid_grant" });
    } finally {
      provider.clock.advance(-61_000);
    }
  });
});
