import { httpHandlerFor } from "@portcullis/core";
import * as client from "openid-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEVICE_CODE_GRANT } from "./clients.js";
import { relyingParty, startProvider, TEST_CLIENTS, type TestProvider } from "./test-provider.js";

const SCOPE = "openid email projects:read";
let provider: TestProvider;
let tv: client.Configuration;

beforeEach(async () => {
  provider = await startProvider();
  tv = await relyingParty(provider, "tv");
});
afterEach(() => provider.close());

/** The TV asks for a device authorization (openid-client). */
const initiate = (scope = SCOPE) => client.initiateDeviceAuthorization(tv, { scope });

/** openid-client polling at once (the test moves the provider's clock instead of waiting 5 s). */
const pollTokens = (response: client.DeviceAuthorizationResponse) =>
  client.pollDeviceAuthorizationGrant(tv, { ...response, interval: 0 });

/** The browser's headers: the signed-in user's cookies and the app's origin (CSRF). */
const browser = (cookie = provider.cookie) => ({
  cookie,
  origin: provider.origin,
  "content-type": "application/json",
});

/** The device page's look-up of a user code: status and body. */
async function lookUp(userCode: string) {
  const response = await fetch(`${provider.issuer}/oauth2/device?userCode=${encodeURIComponent(userCode)}`, {
    headers: browser(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The signed-in user's answer to a user code: the response. */
async function verify(userCode: unknown, approve: boolean, cookie = provider.cookie) {
  const response = await fetch(`${provider.issuer}/oauth2/device/verify`, {
    method: "POST",
    headers: browser(cookie),
    body: JSON.stringify({ userCode, approve }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, response };
}

/** One poll of the token endpoint by hand, as `clientId` (public): status and body. */
async function poll(deviceCode: string, clientId = "tv") {
  const response = await fetch(`${provider.issuer}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: deviceCode,
      client_id: clientId,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A raw request to the device authorization endpoint. */
async function deviceAuthorization(form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${provider.issuer}/oauth2/device_authorization`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("the device authorization grant (RFC 8628)", () => {
  it("approved on the device page: the device's poll gets an access, refresh and ID token once", async () => {
    const started = await initiate();
    expect(started.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(started.verification_uri).toBe(`${provider.origin}/device`);
    expect(started.verification_uri_complete).toBe(`${provider.origin}/device?userCode=${started.user_code}`);
    expect(started).toMatchObject({ expires_in: 600, interval: 5 });
    expect(await poll(started.device_code)).toMatchObject({
      status: 400,
      body: { error: "authorization_pending" },
    });

    const typed = started.user_code.toLowerCase().replace("-", "");
    expect(await lookUp(typed)).toEqual({
      status: 200,
      body: { client: { clientId: "tv", name: "The TV app" }, scopes: ["openid", "email", "projects:read"] },
    });
    const answer = await verify(started.user_code.replace("-", " "), true);
    expect(answer).toMatchObject({ status: 200, body: { success: true, approved: true } });
    expect((await lookUp(started.user_code)).status).toBe(400);

    provider.clock.advance(5_000);
    const tokens = await pollTokens(started);
    expect(tokens.claims()).toMatchObject({ sub: provider.user.id, email: "ada@example.test" });
    expect(tokens.scope).toBe(SCOPE);
    const verified = await provider.auth.oauthProvider?.verifyAccessToken(tokens.access_token, {
      audience: "tv",
      scopes: ["projects:read"],
    });
    expect(verified).toMatchObject({ userId: provider.user.id, clientId: "tv" });
    const renewed = await client.refreshTokenGrant(tv, tokens.refresh_token as string);
    expect(renewed.access_token).toBeTypeOf("string");
    expect(await poll(started.device_code)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    const grants = await fetch(`${provider.issuer}/oauth2/grants`, { headers: browser() });
    expect(await grants.json()).toMatchObject({
      grants: [{ clientId: "tv", scopes: ["openid", "email", "projects:read"] }],
    });
  });

  it("denied: the poll answers access_denied, and the code is done", async () => {
    const started = await initiate("projects:read");
    expect(await verify(started.user_code, false)).toMatchObject({
      status: 200,
      body: { success: true, approved: false },
    });
    await expect(pollTokens(started)).rejects.toMatchObject({ error: "access_denied" });
    expect(await poll(started.device_code)).toMatchObject({ body: { error: "invalid_grant" } });
    expect((await verify(started.user_code, true)).body).toMatchObject({ error: "invalid_request" });
    const grants = await fetch(`${provider.issuer}/oauth2/grants`, { headers: browser() });
    expect(await grants.json()).toEqual({ grants: [] });
  });

  it("expired: past expires_in the poll answers expired_token and the user code is unknown", async () => {
    const started = await initiate();
    provider.clock.advance(600_000);
    expect((await lookUp(started.user_code)).body).toMatchObject({ error: "invalid_request" });
    expect((await verify(started.user_code, true)).status).toBe(400);
    await expect(pollTokens(started)).rejects.toMatchObject({ error: "expired_token" });
  });

  it("polled too fast: slow_down, and the interval grows by 5 s each time", async () => {
    const { device_code: deviceCode } = await initiate();
    expect((await poll(deviceCode)).body.error).toBe("authorization_pending");
    expect((await poll(deviceCode)).body.error).toBe("slow_down");
    provider.clock.advance(5_000);
    expect((await poll(deviceCode)).body.error).toBe("slow_down");
    provider.clock.advance(14_999);
    expect((await poll(deviceCode)).body.error).toBe("slow_down");
    provider.clock.advance(20_000);
    expect((await poll(deviceCode)).body.error).toBe("authorization_pending");
  });
});

describe("refusals", () => {
  it("device authorization: a client without the device grant, an unknown client, a scope not the client's", async () => {
    expect(await deviceAuthorization({ client_id: "cli", scope: "openid" })).toMatchObject({
      status: 400,
      body: { error: "unauthorized_client" },
    });
    expect(await deviceAuthorization({ client_id: "nobody", scope: "openid" })).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
    });
    for (const scope of ["profile", ""])
      expect((await deviceAuthorization({ client_id: "tv", scope })).body.error).toBe("invalid_scope");
    const foreign = { client_id: "tv", scope: "openid", resource: "https://elsewhere.example.test/" };
    expect((await deviceAuthorization(foreign)).body.error).toBe("invalid_target");
  });

  it("the token endpoint: another client's grant type, a missing or unknown device code", async () => {
    const { device_code: deviceCode } = await initiate();
    expect((await poll(deviceCode, "cli")).body.error).toBe("unauthorized_client");
    expect((await poll("")).body.error).toBe("invalid_request");
    expect((await poll("not-a-device-code")).body.error).toBe("invalid_grant");
    expect((await poll("A".repeat(43))).body.error).toBe("invalid_grant");
  });

  it("an approved device code polled by another device client: invalid_grant, no tokens", async () => {
    await provider.close();
    const otherTv = { clientId: "other-tv", name: "Another TV", redirectUris: [], scopes: ["openid"] };
    provider = await startProvider({
      clients: [...TEST_CLIENTS, { ...otherTv, grantTypes: [DEVICE_CODE_GRANT] }],
    });
    tv = await relyingParty(provider, "tv");
    const started = await initiate("openid");
    expect((await verify(started.user_code, true)).status).toBe(200);
    expect(await poll(started.device_code, "other-tv")).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });
  });

  it("a wrong or malformed user code: 400; a missing approve: 400; not signed in: 401", async () => {
    const started = await initiate();
    const wrong = started.user_code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    expect(await lookUp(wrong)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(await verify(wrong, true)).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    for (const malformed of ["AAAA-AAAA", "BCD", 12345678, null, "B".repeat(100)])
      expect((await verify(malformed, true)).body).toMatchObject({ error: "invalid_request" });
    const noAnswer = await fetch(`${provider.issuer}/oauth2/device/verify`, {
      method: "POST",
      headers: browser(),
      body: JSON.stringify({ userCode: started.user_code }),
    });
    expect(noAnswer.status).toBe(400);
    const signedOut = await fetch(`${provider.issuer}/oauth2/device/verify`, {
      method: "POST",
      headers: { ...browser(), cookie: "" },
      body: JSON.stringify({ userCode: started.user_code, approve: true }),
    });
    expect(signedOut.status).toBe(401);
    expect((await poll(started.device_code)).body.error).toBe("authorization_pending");
  });

  it("guessing: after 10 wrong user codes in 10 minutes every try is refused with 429, the right one too", async () => {
    const started = await initiate();
    const wrong = started.user_code === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    for (let index = 0; index < 12; index++) expect((await lookUp("AAAA")).status).toBe(400);
    for (let index = 0; index < 9; index++) expect((await verify(wrong, true)).status).toBe(400);
    expect((await lookUp(started.user_code)).status).toBe(200);
    expect((await lookUp(wrong)).status).toBe(400);
    const refused = await verify(started.user_code, true);
    expect(refused).toMatchObject({ status: 429, body: { error: "slow_down" } });
    expect(Number(refused.response.headers.get("retry-after"))).toBeGreaterThan(500);
    expect((await lookUp(started.user_code)).status).toBe(429);
    expect((await poll(started.device_code)).body.error).toBe("authorization_pending");
  });

  it("an impersonation session may not approve", async () => {
    const started = await initiate();
    const impersonation = await provider.auth.host.impersonate({ actor: "support" }, provider.user.id);
    const cookie = httpHandlerFor(provider.auth)
      .sessionCookies(impersonation)
      .map((line) => line.split(";")[0])
      .join("; ");
    expect(await verify(started.user_code, true, cookie)).toMatchObject({
      status: 403,
      body: { error: "access_denied" },
    });
    expect((await poll(started.device_code)).body.error).toBe("authorization_pending");
  });
});

describe("races", () => {
  it("20 concurrent approvals of one user code: exactly one counts", async () => {
    const started = await initiate();
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(started.user_code, true)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((one) => one.status !== 200))
      expect(["invalid_request", "slow_down"]).toContain(answer.body.error);
  });

  it("20 concurrent polls of an approved code: exactly one gets the tokens", async () => {
    const started = await initiate();
    expect((await verify(started.user_code, true)).status).toBe(200);
    const polls = await Promise.all(Array.from({ length: 20 }, () => poll(started.device_code)));
    const granted = polls.filter((one) => one.status === 200);
    expect(granted).toHaveLength(1);
    expect(granted[0]?.body).toMatchObject({ token_type: "Bearer", scope: SCOPE });
    for (const refused of polls.filter((one) => one.status !== 200))
      expect(refused.body.error).toBe("invalid_grant");
  });
});
