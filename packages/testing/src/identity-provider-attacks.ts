// The identity-provider tests of attacks that must sign no one in (state, nonce, audience,
// expiry, returnTo, an unverified address); identity-provider-suite.ts runs them with the others.
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { createFakeClock } from "./fake-clock.js";
import { hostileReturnTos, RETURN_TOS_TO_ANOTHER_ORIGIN } from "./hostile-return-to.js";
import {
  api,
  type BrowserReply,
  callbackOf,
  errorOf,
  finishLink,
  hasSession,
  ID_TOKEN_TTL_SECONDS,
  type IdpApp,
  type IdpBoot,
  me,
  newAccount,
  OTHER,
  OTHER_REDIRECT,
  passwordAccount,
  passwordLogin,
  signIn,
  steppedUpLink,
  TestBrowser,
  toCallback,
} from "./identity-provider-fixture.js";

/** A reply that is a 400 VALIDATION_FAILED without a redirect (`returnTo` names the case). */
function expectRefused(reply: BrowserReply, returnTo: string) {
  expect(reply.status, returnTo).toBe(400);
  expect(JSON.parse(reply.body).code, returnTo).toBe("VALIDATION_FAILED");
  expect(reply.location, returnTo).toBeNull();
}

/** `location`, resolved against the callback URL as a browser does, is on the app's origin. */
function expectOnAppOrigin(app: IdpApp, location: string | null, returnTo: string) {
  expect(new URL(location ?? "about:blank").origin, returnTo).toBe(app.appOrigin);
  expect(new URL(location ?? "about:blank").pathname.startsWith("//"), returnTo).toBe(false);
}

/**
 * Signs in with `returnTo`, then steps up with it in the same browser: both land on the app's
 * origin, or authorize refuses it (a 400). Whether it was followed.
 */
async function signInAndStepUpWith(app: IdpApp, browser: TestBrowser, returnTo: string): Promise<boolean> {
  const query = `?returnTo=${encodeURIComponent(returnTo)}`;
  const start = await browser.request(api(app, `/oauth/oidc/authorize${query}`));
  if (start.status !== 302) {
    expectRefused(start, returnTo);
    return false;
  }
  const done = await browser.request(await browser.followUntil(start.location ?? "", callbackOf(app)));
  expect(done.status, returnTo).toBe(302);
  expect(hasSession(done.setCookies), returnTo).toBe(true);
  expectOnAppOrigin(app, done.location, returnTo);
  const stepUp = await browser.request(api(app, `/oauth/oidc/authorize${query}&stepUp=1`));
  expect(stepUp.status, returnTo).toBe(302);
  const steppedUp = await browser.request(await browser.followUntil(stepUp.location ?? "", callbackOf(app)));
  expect(new URL(steppedUp.location ?? "about:blank").searchParams.get("stepUp"), returnTo).toBe("1");
  expectOnAppOrigin(app, steppedUp.location, returnTo);
  return true;
}

/** A password account links the provider with `returnTo` in the body: on the app's origin, or a 400. */
async function linkWith(app: IdpApp, returnTo: string) {
  const email = `link-return-${randomBytes(4).toString("hex")}@example.test`;
  await passwordAccount(app, email, true);
  const link = await steppedUpLink(app, await passwordLogin(app, email), returnTo);
  if (link.status !== 200) {
    expect(link.status, returnTo).toBe(400);
    expect(((await link.json()) as { code: string }).code, returnTo).toBe("VALIDATION_FAILED");
    return;
  }
  const done = await finishLink(app, link, newAccount(app).browser);
  expect(done.location, returnTo).toBe(`${app.appOrigin}/settings/x?tab=1&linked=oidc#top`);
  expectOnAppOrigin(app, done.location, returnTo);
}

/** An ID token the provider issued to the other client (another audience) for `nonce`. */
async function otherAudienceIdToken(app: IdpApp, accountId: string, nonce: string): Promise<string> {
  const otherAuthorize = new URL(`${app.provider.issuer}/auth`);
  for (const [key, value] of Object.entries({
    client_id: OTHER.clientId,
    redirect_uri: OTHER_REDIRECT,
    response_type: "code",
    scope: "openid email",
    nonce,
    state: "other-state",
  }))
    otherAuthorize.searchParams.set(key, value);
  const otherCallback = await new TestBrowser(accountId).followUntil(otherAuthorize.href, (url) =>
    url.startsWith(OTHER_REDIRECT),
  );
  const tokens = await fetch(`${app.provider.issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: new URL(otherCallback).searchParams.get("code") ?? "",
      redirect_uri: OTHER_REDIRECT,
      client_id: OTHER.clientId,
      client_secret: OTHER.clientSecret,
    }),
  });
  return ((await tokens.json()) as { id_token: string }).id_token;
}

/** The "attacks - never sign anyone in" group: name ("<method> - <behaviour>") → body, given the boot. */
export const identityProviderAttackTests: Record<string, (boot: IdpBoot) => Promise<void>> = {
  "a replayed state: the second use of a callback is IDENTITY_PROVIDER_STATE_INVALID": async (boot) => {
    const app = await boot();
    const { browser } = newAccount(app);
    const callback = await toCallback(app, browser);
    const stateCookie = browser.cookies(app.appOrigin).get("oauth_state") ?? "";
    expect(hasSession((await browser.request(callback)).setCookies)).toBe(true);
    const replayer = new TestBrowser("nobody");
    replayer.cookies(app.appOrigin).set("oauth_state", stateCookie);
    const replay = await replayer.request(callback);
    expect(replay.status).toBe(302);
    expect(errorOf(replay.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
    expect(hasSession(replay.setCookies)).toBe(false);
  },

  "a foreign state: a callback started in another browser, or without the state cookie": async (boot) => {
    const app = await boot();
    const attacker = newAccount(app);
    const callback = await toCallback(app, attacker.browser);
    const victim = new TestBrowser("victim");
    await victim.request(api(app, "/oauth/oidc/authorize"));
    const foreign = await victim.request(callback);
    expect(errorOf(foreign.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
    expect(hasSession(foreign.setCookies)).toBe(false);
    const noCookie = await new TestBrowser("none").request(callback);
    expect(errorOf(noCookie.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
    expect(hasSession(noCookie.setCookies)).toBe(false);
    // The state was not spent by the failures: its own browser still completes.
    expect(hasSession((await attacker.browser.request(callback)).setCookies)).toBe(true);
  },

  "a wrong nonce: an ID token of an earlier sign-in put in the token response": async (boot) => {
    const app = await boot();
    const { browser } = newAccount(app);
    await signIn(app, browser);
    const earlier = app.idTokens.at(-1);
    app.tamper((body) => ({ ...body, id_token: earlier }));
    const done = await signIn(app, browser);
    expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
    expect(hasSession(done.setCookies)).toBe(false);
  },

  "an ID token for another audience (another client's, with the very same nonce)": async (boot) => {
    const app = await boot();
    const { id, browser } = newAccount(app);
    const start = await browser.request(api(app, "/oauth/oidc/authorize"));
    const nonce = new URL(start.location ?? "").searchParams.get("nonce") ?? "";
    const foreignIdToken = await otherAudienceIdToken(app, id, nonce);
    expect(foreignIdToken).toMatch(/^ey/);
    app.tamper((body) => ({ ...body, id_token: foreignIdToken }));
    const done = await browser.request(await browser.followUntil(start.location ?? "", callbackOf(app)));
    expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
    expect(hasSession(done.setCookies)).toBe(false);
  },

  "an expired ID token (the app's clock past its exp)": async (boot) => {
    const clock = createFakeClock({ start: Date.now() });
    const app = await boot({ clock });
    const { browser } = newAccount(app);
    const callback = await toCallback(app, browser);
    clock.set(Date.now() + (ID_TOKEN_TTL_SECONDS + 60) * 1000);
    const done = await browser.request(callback);
    expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
    expect(hasSession(done.setCookies)).toBe(false);
  },

  "a returnTo to another origin (or scheme-relative) is refused before the provider is asked": async (
    boot,
  ) => {
    const app = await boot();
    const { browser } = newAccount(app);
    for (const returnTo of ["https://evil.test/x", "//evil.test/x", "/\\evil.test", "javascript:alert(1)"]) {
      const reply = await browser.request(
        api(app, `/oauth/oidc/authorize?returnTo=${encodeURIComponent(returnTo)}`),
      );
      expectRefused(reply, returnTo);
    }
  },

  "returnTo - property: every redirect of sign-in, step-up and link stays on appOrigin, or authorize is a 400":
    async (boot) => {
      const app = await boot();
      const { browser } = newAccount(app);
      let followed = 0;
      for (const returnTo of [...RETURN_TOS_TO_ANOTHER_ORIGIN, ...hostileReturnTos(20_250_601, 36)])
        if (await signInAndStepUpWith(app, browser, returnTo)) followed++;
      for (const returnTo of RETURN_TOS_TO_ANOTHER_ORIGIN) {
        const query = `?returnTo=${encodeURIComponent(returnTo)}&stepUp=1`;
        expectRefused(await browser.request(api(app, `/oauth/oidc/authorize${query}`)), returnTo);
      }
      // Some generated values get through, so the callback's redirect is exercised.
      expect(followed).toBeGreaterThan(5);
      // Link: a password account with a step-up starts it with the returnTo in the body.
      for (const returnTo of [...RETURN_TOS_TO_ANOTHER_ORIGIN, "/settings/./../settings/%2e/x?tab=1#top"])
        await linkWith(app, returnTo);
    },

  "a provider address marked unverified colliding with an existing account: refused, nothing linked": async (
    boot,
  ) => {
    const app = await boot();
    const email = `taken-${randomBytes(4).toString("hex")}@example.test`;
    const owner = await passwordAccount(app, email, true);
    const { id, browser } = newAccount(app, false, email);
    const done = await signIn(app, browser);
    expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED");
    expect(hasSession(done.setCookies)).toBe(false);
    expect(await app.stores.identities?.findBySubject(app.provider.issuer, id)).toBeNull();
    expect((await app.stores.users.findById(owner.id))?.identityProviders).toEqual([]);
  },

  "a verified provider address of an account whose own address is unverified: IDENTITY_PROVIDER_ACCOUNT_EXISTS":
    async (boot) => {
      const app = await boot();
      const email = `unverified-${randomBytes(4).toString("hex")}@example.test`;
      await passwordAccount(app, email, false);
      const { browser } = newAccount(app, true, email);
      const done = await signIn(app, browser);
      expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
      expect(hasSession(done.setCookies)).toBe(false);
    },

  "an address both sides verified: the first sign-in links to the existing account": async (boot) => {
    const app = await boot();
    const email = `verified-${randomBytes(4).toString("hex")}@example.test`;
    const owner = await passwordAccount(app, email, true);
    const { browser } = newAccount(app, true, email);
    const done = await signIn(app, browser);
    expect(hasSession(done.setCookies)).toBe(true);
    expect(JSON.parse((await me(app, browser)).body)).toMatchObject({
      id: owner.id,
      hasPassword: true,
      identityProviders: ["oidc"],
    });
  },
};
