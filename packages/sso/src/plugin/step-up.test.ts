import { inflateRawSync } from "node:zlib";
import {
  fetchSamlPostedForm,
  startTestOidcProvider,
  startTestSamlIdp,
  type TestOidcProvider,
  type TestSamlIdp,
} from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cookieHeader,
  type Jars,
  keepCookies,
  type SsoHost,
  startInBrowser,
  startSsoHost,
  visit,
} from "./test-sso-server.js";

// A step-up through the connection an account signs in with (an account SSO made has no password
// of its own): SAML with ForceAuthn against the real test IdP, OpenID Connect with prompt=login
// against the real test provider.
const CLIENT = { clientId: "acme-step-up", clientSecret: "acme-step-up-client-secret-0123456789ab" };

let host: SsoHost;
let idp: TestSamlIdp;
let provider: TestOidcProvider;

/**
 * The host's clock: the real time (the identity providers sign with it), `ahead.ms` later while a
 * test plays an identity provider that answered from an older login.
 */
const ahead = { ms: 0 };
const clock = { now: () => Date.now() + ahead.ms };

/** Claims and verifies `domain` for the host's organization through its TXT record. */
async function verifiedDomain(domain: string) {
  const claimed = await host.call("POST", `/organizations/${host.organization.id}/domains`, { domain });
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  host.txt.set(record.name, [[record.value]]);
  expect(
    (await host.call("POST", `/organizations/${host.organization.id}/domains/${domain}/verify`)).status,
  ).toBe(200);
}

/** A cookie of the app's jar. */
const cookieOf = (jars: Jars, name: string) => jars.get(host.origin)?.get(name);

/** `POST /sso/step-up` with the session the jars hold: its status, and the provider's URL (the binding cookie kept). */
async function startStepUp(jars: Jars) {
  const jar = jars.get(host.origin) ?? new Map<string, string>();
  const response = await fetch(`${host.api}/sso/step-up`, {
    method: "POST",
    headers: { origin: host.origin, "content-type": "application/json", cookie: cookieHeader(jar) },
    body: JSON.stringify({ returnTo: "/settings" }),
  });
  keepCookies(jar, response);
  const body = (await response.json()) as { url?: string; code?: string };
  return { status: response.status, url: body.url ?? "", code: body.code };
}

/** What a route that wants a step-up (the account's export) answers the jars' session: 401 STEP_UP_REQUIRED or 200. */
async function steppedUp(jars: Jars): Promise<number> {
  const response = await fetch(`${host.api}/me/export`, {
    headers: { cookie: cookieHeader(jars.get(host.origin)) },
  });
  return response.status;
}

/** The browser's OpenID Connect round trip from `url` as `account`, until it lands on the app. */
async function throughProvider(url: string, jars: Jars, account: string): Promise<URL> {
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    const response = await visit(next, jars, account);
    const location = new URL(response.headers.get("location") ?? "", next);
    if (location.origin === host.origin && !location.pathname.startsWith("/api/")) return location;
    next = location.href;
  }
  throw new Error("too many redirects");
}

/**
 * A SAML round trip from `url` as `user` (with the IdP's `knobs`): the IdP's form posted to the
 * ACS, then the finish in this browser; where it lands on the app (at once when the ACS refuses).
 */
async function throughIdp(
  url: string,
  jars: Jars,
  user: string,
  knobs: Record<string, string> = {},
): Promise<URL> {
  const form = await fetchSamlPostedForm(url, { user, ...knobs });
  const acs = await fetch(form.action, {
    method: "POST",
    redirect: "manual",
    headers: { origin: new URL(idp.ssoUrl).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: form.samlResponse, RelayState: form.relayState }).toString(),
  });
  const next = new URL(acs.headers.get("location") ?? "", host.origin);
  if (!next.pathname.startsWith("/api/")) return next;
  const finish = await visit(next.href, jars, "");
  return new URL(finish.headers.get("location") ?? "", host.origin);
}

/** The status `GET /me` answers the jars' session: 200 while it is signed in. */
async function me(jars: Jars): Promise<number> {
  const response = await fetch(`${host.api}/me`, {
    headers: { cookie: cookieHeader(jars.get(host.origin)) },
  });
  return response.status;
}

beforeAll(async () => {
  host = await startSsoHost({ allowPrivateNetworks: true, clock });
  idp = await startTestSamlIdp({ entityId: "urn:placeholder", acsUrl: "http://127.0.0.1/placeholder" });
  provider = await startTestOidcProvider({
    client: { ...CLIENT, redirectUris: [`${host.api}/sso/oidc/callback`] },
  });
  await verifiedDomain("saml-up.test");
  await verifiedDomain("oidc-up.test");
  const saml = await host.call("POST", `/organizations/${host.organization.id}/sso/connections`, {
    type: "saml",
    entityId: idp.entityId,
    ssoUrl: idp.ssoUrl,
    certificate: idp.certificate,
    domains: ["saml-up.test"],
  });
  await idp.register(
    ((await saml.json()) as { connection: { serviceProvider: { entityId: string; acsUrl: string } } })
      .connection.serviceProvider,
  );
  const oidc = await host.call("POST", `/organizations/${host.organization.id}/sso/connections`, {
    type: "oidc",
    issuer: provider.issuer,
    ...CLIENT,
    domains: ["oidc-up.test"],
  });
  expect(oidc.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await provider?.close();
  await idp?.close();
  await host?.close();
});

describe("a step-up through the account's connection", () => {
  it("OpenID Connect - prompt=login, then back on returnTo with stepUp=1 and a step-up token the step-up routes take", async () => {
    const email = "lin@oidc-up.test";
    provider.setAccount("lin", { email, emailVerified: true });
    const jars: Jars = new Map();
    const signedIn = await throughProvider(await startFor(email, jars), jars, "lin");
    expect(signedIn.searchParams.get("error")).toBeNull();
    expect(await steppedUp(jars)).toBe(401);
    const stepUp = await startStepUp(jars);
    expect(stepUp.status).toBe(200);
    const asked = new URL(stepUp.url);
    expect([asked.searchParams.get("prompt"), asked.searchParams.get("max_age")]).toEqual(["login", "0"]);
    const back = await throughProvider(stepUp.url, jars, "lin");
    expect(back.pathname).toBe("/settings");
    expect(back.searchParams.get("stepUp")).toBe("1");
    expect(cookieOf(jars, "step_up_token")).toBeTruthy();
    expect(await steppedUp(jars)).toBe(200);
  });

  it("OpenID Connect - a login at the provider as someone else steps up nobody: IDENTITY_PROVIDER_MISMATCH", async () => {
    provider.setAccount("kai", { email: "kai@oidc-up.test", emailVerified: true });
    provider.setAccount("mo", { email: "mo@oidc-up.test", emailVerified: true });
    const other: Jars = new Map();
    await throughProvider(await startFor("mo@oidc-up.test", other), other, "mo");
    const jars: Jars = new Map();
    await throughProvider(await startFor("kai@oidc-up.test", jars), jars, "kai");
    const stepUp = await startStepUp(jars);
    // Signed out at the provider, then in as someone else.
    jars.delete(new URL(provider.issuer).origin);
    const back = await throughProvider(stepUp.url, jars, "mo");
    expect([back.pathname, back.searchParams.get("error")]).toEqual([
      "/settings",
      "IDENTITY_PROVIDER_MISMATCH",
    ]);
    expect(cookieOf(jars, "step_up_token")).toBeUndefined();
    expect(await steppedUp(jars)).toBe(401);
  });

  it("SAML - ForceAuthn in the AuthnRequest, then back with stepUp=1 and a step-up token", async () => {
    const email = "sam@saml-up.test";
    const jars: Jars = new Map();
    const signedIn = await throughIdp(await startFor(email, jars), jars, email);
    expect(signedIn.searchParams.get("error")).toBeNull();
    const stepUp = await startStepUp(jars);
    expect(stepUp.status).toBe(200);
    const request = inflateRawSync(
      Buffer.from(new URL(stepUp.url).searchParams.get("SAMLRequest") ?? "", "base64"),
    ).toString();
    expect(request).toMatch(/ForceAuthn="true"/);
    const back = await throughIdp(stepUp.url, jars, email);
    expect([back.pathname, back.searchParams.get("stepUp")]).toEqual(["/settings", "1"]);
    expect(await steppedUp(jars)).toBe(200);
  });

  it("OpenID Connect - the provider answers with an error (access_denied): back on returnTo with IDENTITY_PROVIDER_REJECTED, still signed in", async () => {
    const email = "ida@oidc-up.test";
    provider.setAccount("ida", { email, emailVerified: true });
    const jars: Jars = new Map();
    await throughProvider(await startFor(email, jars), jars, "ida");
    const state = new URL((await startStepUp(jars)).url).searchParams.get("state") ?? "";
    // The provider's error answer (RFC 6749 §4.1.2.1), as its redirect brings the browser back.
    const query = new URLSearchParams({ error: "access_denied", state, iss: provider.issuer });
    const callback = await visit(`${host.api}/sso/oidc/callback?${query}`, jars, "");
    const back = new URL(callback.headers.get("location") ?? "", host.origin);
    expect([callback.status, back.pathname, back.searchParams.get("error")]).toEqual([
      302,
      "/settings",
      "IDENTITY_PROVIDER_REJECTED",
    ]);
    expect(await me(jars)).toBe(200);
    expect(await steppedUp(jars)).toBe(401);
  });

  it("SAML - an AuthnInstant older than 5 minutes and the skew steps up nobody: back on returnTo with SSO_ASSERTION_INVALID; 4 minutes old steps up", async () => {
    const email = "old@saml-up.test";
    const jars: Jars = new Map();
    await throughIdp(await startFor(email, jars), jars, email);
    try {
      // The IdP ignores ForceAuthn and answers from a login 8 minutes ago (the host's clock that
      // much ahead), with an assertion valid for an hour: only its AuthnInstant is too old.
      ahead.ms = 8 * 60_000;
      const stale = await throughIdp((await startStepUp(jars)).url, jars, email, { lifetime: "3600" });
      expect([stale.pathname, stale.searchParams.get("error")]).toEqual([
        "/settings",
        "SSO_ASSERTION_INVALID",
      ]);
      expect(cookieOf(jars, "step_up_token")).toBeUndefined();
      expect(await me(jars)).toBe(200);
      expect(await steppedUp(jars)).toBe(401);
      ahead.ms = 4 * 60_000;
      const recent = await throughIdp((await startStepUp(jars)).url, jars, email, { lifetime: "3600" });
      expect([recent.pathname, recent.searchParams.get("stepUp")]).toEqual(["/settings", "1"]);
      expect(await steppedUp(jars)).toBe(200);
    } finally {
      ahead.ms = 0;
    }
  });

  it("SAML - an assertion signed by another key answering a step-up: back on returnTo with SSO_ASSERTION_INVALID, still signed in", async () => {
    const email = "eve@saml-up.test";
    const jars: Jars = new Map();
    await throughIdp(await startFor(email, jars), jars, email);
    const back = await throughIdp((await startStepUp(jars)).url, jars, email, { key: "other" });
    expect([back.pathname, back.searchParams.get("error")]).toEqual(["/settings", "SSO_ASSERTION_INVALID"]);
    expect(await me(jars)).toBe(200);
    expect(await steppedUp(jars)).toBe(401);
  });

  it("SAML - a step-up whose session ended meanwhile: the sign-in page with AUTHENTICATION_REQUIRED", async () => {
    const email = "out@saml-up.test";
    const jars: Jars = new Map();
    await throughIdp(await startFor(email, jars), jars, email);
    const { url } = await startStepUp(jars);
    const logout = await fetch(`${host.api}/logout`, {
      method: "POST",
      headers: { origin: host.origin, cookie: cookieHeader(jars.get(host.origin)) },
    });
    expect(logout.status).toBe(200);
    const back = await throughIdp(url, jars, email);
    expect([back.pathname, back.searchParams.get("error")]).toEqual(["/login", "AUTHENTICATION_REQUIRED"]);
  });

  it("an account no connection signs in (a password account): 404 NOT_FOUND", async () => {
    const jars: Jars = new Map([
      [
        host.origin,
        new Map(host.owner.headers.cookie.split("; ").map((pair) => pair.split("=") as [string, string])),
      ],
    ]);
    const stepUp = await startStepUp(jars);
    expect([stepUp.status, stepUp.code]).toEqual([404, "NOT_FOUND"]);
  });
});

/** `POST /sso/start { email }` in the browser of `jars` (its binding cookie kept): the provider's URL. */
const startFor = (email: string, jars: Jars) => startInBrowser(host, { email }, jars);
