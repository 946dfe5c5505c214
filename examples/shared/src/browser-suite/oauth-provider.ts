import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  expectSaid,
  LOCALES,
  PASSWORD,
  shotAndFit,
  visible,
  withTimeout,
} from "./fixture.js";
import {
  authorizationUrl,
  claimsOf,
  type Flow,
  flowSecrets,
  type Provider,
  poll,
  SCOPES,
  startDevice,
  tokenRequest,
  withProvider,
} from "./oauth-relying-party.js";

// ---- Issue 46: the example as an OAuth 2.1 / OpenID provider, driven by a hand-made relying party ----
type Lang = "en" | "de";
/** The page's words the tests look for, in both languages. */
const WORDS = {
  toContinue: {
    en: "Sign in to continue to the app that sent you here.",
    de: "Melde dich an, um mit der App fortzufahren, die dich hierher geschickt hat.",
  },
  again: {
    en: "Sign in again to continue: the app asks you to confirm it is you.",
    de: "Melde dich erneut an, um fortzufahren: Die App bittet dich zu bestätigen, dass du es bist.",
  },
  consentTitle: { en: "Allow access?", de: "Zugriff erlauben?" },
  asks: (client: string) => ({ en: `${client} asks to:`, de: `${client} möchte:` }),
  scopes: {
    en: [
      "Know who you are (your account's ID)",
      "See your name",
      "See your email address",
      "Stay connected while you are away, until you revoke its access",
      "Read your projects",
    ],
    de: [
      "Wissen, wer du bist (die ID deines Kontos)",
      "Deinen Namen sehen",
      "Deine E-Mail-Adresse sehen",
      "Verbunden bleiben, während du weg bist, bis du den Zugriff widerrufst",
      "Deine Projekte lesen",
    ],
  },
  backTo: (origin: string) => ({
    en: `After your answer you go back to ${origin}.`,
    de: `Nach deiner Antwort geht es zurück zu ${origin}.`,
  }),
  signedInAs: (email: string) => ({
    en: `You are signed in as ${email}.`,
    de: `Du bist als ${email} angemeldet.`,
  }),
  allow: { en: "Allow", de: "Erlauben" },
  deny: { en: "Deny", de: "Ablehnen" },
  deviceTitle: { en: "Connect a device", de: "Gerät verbinden" },
  deviceAsks: (client: string) => ({
    en: `${client} on your device asks to:`,
    de: `${client} auf deinem Gerät möchte:`,
  }),
  approve: { en: "Approve", de: "Bestätigen" },
  approved: (client: string) => ({
    en: `Done: ${client} is connected. You can go back to your device.`,
    de: `Fertig: ${client} ist verbunden. Du kannst zu deinem Gerät zurückkehren.`,
  }),
  denied: (client: string) => ({
    en: `Denied: ${client} gets no access. You can close this page.`,
    de: `Abgelehnt: ${client} erhält keinen Zugriff. Du kannst diese Seite schließen.`,
  }),
  unknownCode: {
    en: "This code is unknown or has expired. Check the code your device shows, or start again there.",
    de: "Dieser Code ist unbekannt oder abgelaufen. Prüfe den Code auf deinem Gerät oder beginne dort neu.",
  },
  appsTitle: { en: "Authorized apps", de: "Berechtigte Apps" },
  revokeNamed: (name: string) => ({ en: `Revoke access of ${name}`, de: `Zugriff von ${name} widerrufen` }),
  revokeYes: { en: "Yes, revoke it", de: "Ja, widerrufen" },
  revoked: (name: string) => ({
    en: `The access of ${name} was revoked.`,
    de: `Der Zugriff von ${name} wurde widerrufen.`,
  }),
  noApps: { en: "No app has access to your account.", de: "Keine App hat Zugriff auf dein Konto." },
};
const say = expectSaid;

/** Fills and sends the sign-in form of the page shown. */
async function submitSignIn(page: Page, email: string) {
  await page.fill("#login [name=email]", email);
  await page.fill("#login [name=password]", PASSWORD);
  await page.click("#login button[type=submit]");
}

/** The account `label` in the provider's example, with a name; its address and user id. */
async function accountOf(f: BrowserFixture, p: Provider, label: string) {
  const email = await f.createAccount(label, { name: "Ada Lovelace" }, p.example);
  const user = await p.example.stores.users.findByEmail(email);
  return { email, userId: user?.id as string };
}

/** The consent page as it shows the browser app's request, in `lang`. */
async function expectConsentPage(page: Page, p: Provider, lang: Lang, email: string) {
  await page.waitForURL((url) => url.pathname === "/oauth/consent" && url.searchParams.has("consentId"));
  await expect.poll(() => visible(page, "#consent-request")).toBe(true);
  expect(await page.locator("#oauth-consent h1").textContent()).toBe(WORDS.consentTitle[lang]);
  expect(await page.locator("#consent-lead").textContent()).toBe(WORDS.asks("Browser App")[lang]);
  expect(await page.locator("#consent-scopes li").allTextContents()).toEqual(WORDS.scopes[lang]);
  expect(await page.locator("#consent-redirect").textContent()).toBe(WORDS.backTo(p.callback.origin)[lang]);
  expect(await page.locator("#consent-account").textContent()).toBe(WORDS.signedInAs(email)[lang]);
}

/** Clicks `button` on the consent page and waits for the relying party's callback to be called: its query. */
async function answerConsent(page: Page, p: Provider, lang: Lang, button: "allow" | "deny") {
  const before = p.callback.hits.length;
  await page.getByRole("button", { name: WORDS[button][lang], exact: true }).click();
  await page.waitForURL((url) => url.href.startsWith(p.callback.redirectUri));
  // The relying party's own server got the browser, with what the address bar shows.
  await expect.poll(() => p.callback.hits.length).toBe(before + 1);
  const query = new URL(page.url()).searchParams;
  expect(p.callback.hits.at(-1)?.search).toBe(`?${query}`);
  return query;
}

/** Exchanges a code as the relying party and checks the tokens: an RFC 9068 access token, the ID token, a refresh token. */
async function exchangeCode(p: Provider, flow: Flow, code: string, userId: string, email: string) {
  const answer = await tokenRequest(p, {
    grant_type: "authorization_code",
    code,
    redirect_uri: p.callback.redirectUri,
    code_verifier: flow.verifier,
    client_id: "browser-app",
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const { access_token, id_token, refresh_token } = answer.body;
  const verified = await p.example.auth.oauthProvider?.verifyAccessToken(access_token ?? "", {
    audience: "browser-app",
    scopes: ["projects:read"],
  });
  expect(verified).toMatchObject({ userId, clientId: "browser-app", scopes: SCOPES });
  const header = JSON.parse(Buffer.from((access_token ?? "").split(".")[0] ?? "", "base64url").toString());
  expect(header.typ).toBe("at+jwt");
  expect(claimsOf(id_token ?? "")).toMatchObject({
    iss: `${p.base}/api/auth`,
    sub: userId,
    nonce: flow.nonce,
    email,
    name: "Ada Lovelace",
  });
  expect(refresh_token).toEqual(expect.any(String));
  // The code is single use: a second exchange is refused.
  const again = await tokenRequest(p, {
    grant_type: "authorization_code",
    code,
    redirect_uri: p.callback.redirectUri,
    code_verifier: flow.verifier,
    client_id: "browser-app",
  });
  expect([again.status, again.body.error]).toEqual([400, "invalid_grant"]);
  return refresh_token as string;
}

/**
 * A signed-out browser opens the authorization URL, signs in on the page it is sent to, allows
 * on the consent page (checked in `lang`) and lands on the callback with a code: exchanged and
 * checked. Returns the refresh token.
 */
async function authorizeInBrowser(f: BrowserFixture, page: Page, p: Provider, lang: Lang, label: string) {
  const { email, userId } = await accountOf(f, p, label);
  const flow = flowSecrets();
  await page.goto(authorizationUrl(p, flow));
  await page.waitForURL((url) => url.pathname === "/login");
  const returnTo = new URL(page.url()).searchParams.get("returnTo") ?? "";
  expect(returnTo.startsWith("/api/auth/oauth2/authorize?")).toBe(true);
  await expect.poll(() => page.locator("#login-note").textContent()).toBe(WORDS.toContinue[lang]);
  await submitSignIn(page, email);
  await expectConsentPage(page, p, lang, email);
  await shotAndFit(f, page, `46a-consent-${lang}`);
  expect(await accessibilityFindings(page, `consent (${lang})`)).toEqual([]);
  const query = await answerConsent(page, p, lang, "allow");
  expect(query.get("state")).toBe(flow.state);
  expect(query.get("iss")).toBe(`${p.base}/api/auth`);
  const refreshToken = await exchangeCode(p, flow, query.get("code") ?? "", userId, email);
  return { email, userId, refreshToken };
}

/** The sign-in page's own check of `returnTo` (ui/return-to.js), and where a sign-in with a foreign one lands. */
async function refusesForeignReturnTo(page: Page, p: Provider, email: string) {
  await page.goto(`${p.base}/login?returnTo=${encodeURIComponent("https://evil.example/steal")}`);
  const values = [
    "https://evil.example/x",
    "//evil.example/x",
    "/\\evil.example",
    "/./evil",
    "javascript:alert(1)",
    "/login?returnTo=/x",
    "/api/auth/oauth2/authorize?client_id=a&scope=openid%20email",
    "/oauth/consent?consentId=abc",
  ];
  // The page's own module, as the sign-in page loaded it (a string: no bundler rewrites its import).
  const checked = await page.evaluate(
    `import("/ui/return-to.js").then(({ checkedReturnTo }) => ${JSON.stringify(values)}.map(checkedReturnTo))`,
  );
  expect(checked).toEqual([
    null,
    null,
    null,
    "/evil",
    null,
    null,
    "/api/auth/oauth2/authorize?client_id=a&scope=openid%20email",
    "/oauth/consent?consentId=abc",
  ]);
  expect(await visible(page, "#login-note")).toBe(false);
  await submitSignIn(page, email);
  await page.waitForURL((url) => url.pathname === "/account");
  expect(new URL(page.url()).origin).toBe(p.base);
}

/** prompt=consent, an unknown scope shown by its name, then Deny: the callback gets access_denied with the state. */
async function consentThenDeny(page: Page, p: Provider, lang: Lang) {
  const flow = flowSecrets();
  // A scope the page has no words for (the provider offers none here): added to the page's answer.
  const consentAnswer = (url: URL) => url.pathname === "/api/auth/oauth2/consent";
  await page.route(consentAnswer, async (route) => {
    if (route.request().method() !== "GET") return route.continue();
    const answer = await route.fetch();
    const body = (await answer.json()) as { scopes: string[] };
    await route.fulfill({ response: answer, json: { ...body, scopes: [...body.scopes, "calendar:write"] } });
  });
  await page.goto(authorizationUrl(p, flow, { prompt: "consent" }));
  await page.waitForURL((url) => url.pathname === "/oauth/consent");
  await expect
    .poll(() => page.locator("#consent-scopes li").allTextContents())
    .toEqual([...WORDS.scopes[lang], "calendar:write"]);
  await page.unroute(consentAnswer);
  const query = await answerConsent(page, p, lang, "deny");
  expect([query.get("error"), query.get("state"), query.has("code")]).toEqual([
    "access_denied",
    flow.state,
    false,
  ]);
}

/** prompt=login while signed in: the sign-in form shows anyway, and the new sign-in goes on to the code. */
async function signInAgain(f: BrowserFixture, page: Page, p: Provider, lang: Lang, email: string) {
  const flow = flowSecrets();
  await page.goto(authorizationUrl(p, flow, { prompt: "login" }));
  await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.get("reauth") === "1");
  await expect.poll(() => page.locator("#login-note").textContent()).toBe(WORDS.again[lang]);
  expect(await visible(page, "#login")).toBe(true);
  expect(await visible(page, 'nav a[href="/settings/security"]')).toBe(true);
  await shotAndFit(f, page, `46b-sign-in-again-${lang}`);
  await submitSignIn(page, email);
  // Consent was denied before: asked again, then allowed.
  await expectConsentPage(page, p, lang, email);
  const query = await answerConsent(page, p, lang, "allow");
  expect([query.get("state"), query.get("code")]).toEqual([flow.state, expect.any(String)]);
}

/**
 * Signed in by a way that leaves the page (an identity provider's callback lands on
 * `/login?resume=1`, signed in): the page goes on to the authorization it kept, which now asks
 * nothing (consent given before) and answers the callback with a code.
 */
async function resumedAfterLeaving(page: Page, p: Provider, email: string) {
  const flow = flowSecrets();
  await page.goto(authorizationUrl(p, flow));
  await page.waitForURL((url) => url.pathname === "/login" && url.searchParams.has("returnTo"));
  // What the identity provider's callback does: the browser's cookies now hold a session.
  const signedIn = await page.request.post(`${p.base}/api/auth/login`, {
    data: { email, password: PASSWORD },
    headers: { origin: p.base },
  });
  expect(signedIn.status()).toBe(200);
  const before = p.callback.hits.length;
  await page.goto(`${p.base}/login?resume=1`);
  await page.waitForURL((url) => url.href.startsWith(p.callback.redirectUri));
  await expect.poll(() => p.callback.hits.length).toBe(before + 1);
  const query = new URL(page.url()).searchParams;
  expect([query.get("state"), query.get("code")]).toEqual([flow.state, expect.any(String)]);
}

/** On the device page with its request shown: checked in `lang`, then answered. */
async function answerDevice(f: BrowserFixture, page: Page, lang: Lang, approve: boolean) {
  await expect.poll(() => visible(page, "#device-request")).toBe(true);
  expect(await page.locator("#device h1").textContent()).toBe(WORDS.deviceTitle[lang]);
  expect(await page.locator("#device-lead").textContent()).toBe(WORDS.deviceAsks("TV App")[lang]);
  expect(await page.locator("#device-scopes li").allTextContents()).toEqual([
    WORDS.scopes[lang][0],
    WORDS.scopes[lang][1],
    WORDS.scopes[lang][4],
  ]);
  if (approve) await shotAndFit(f, page, `46c-device-request-${lang}`);
  await page.getByRole("button", { name: (approve ? WORDS.approve : WORDS.deny)[lang], exact: true }).click();
  await say(page, lang, (approve ? WORDS.approved : WORDS.denied)("TV App"));
  await expect.poll(() => visible(page, "#device-done")).toBe(true);
}

/**
 * The device flow in `lang`: English opens the device's complete URI signed out (sign-in, then
 * back with the code filled in and looked up); German signs in first, opens /device and types the
 * code after a wrong one. Approved: the next poll, 5 s after the first, gets the tokens.
 */
async function deviceFlow(f: BrowserFixture, page: Page, p: Provider, lang: Lang) {
  const { email, userId } = await accountOf(f, p, `device-${lang}`);
  const device = await startDevice(p);
  expect(device.verification_uri).toBe(`${p.base}/device`);
  const firstPoll = Date.now();
  expect((await poll(p, device.device_code ?? "")).body.error).toBe("authorization_pending");
  if (lang === "en") {
    await page.goto(device.verification_uri_complete ?? "");
    await page.waitForURL((url) => url.pathname === "/login");
    await submitSignIn(page, email);
    await page.waitForURL((url) => url.pathname === "/device");
    // The page fills the code in once its view has rendered, a moment after the URL changed.
    await expect
      .poll(() => page.locator("#device-lookup [name=userCode]").inputValue(), { timeout: 10_000 })
      .toBe(device.user_code);
  } else {
    await page.goto(`${p.base}/login`);
    await submitSignIn(page, email);
    await page.waitForURL((url) => url.pathname === "/account");
    await page.goto(device.verification_uri ?? "");
    await page.fill("#device-lookup [name=userCode]", "BBBB-BBBB");
    await page.click("#device-lookup button[type=submit]");
    await say(page, lang, WORDS.unknownCode);
    await page.fill("#device-lookup [name=userCode]", (device.user_code ?? "").toLowerCase());
    await page.click("#device-lookup button[type=submit]");
  }
  expect(await accessibilityFindings(page, `device (${lang})`)).toEqual([]);
  await answerDevice(f, page, lang, true);
  await shotAndFit(f, page, `46c-device-done-${lang}`);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstPoll + 5_500 - Date.now())));
  const tokens = await poll(p, device.device_code ?? "");
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  const verified = await p.example.auth.oauthProvider?.verifyAccessToken(tokens.body.access_token ?? "", {
    audience: "tv",
  });
  expect(verified).toMatchObject({ userId, clientId: "tv", scopes: ["openid", "profile", "projects:read"] });
  expect(tokens.body.refresh_token).toEqual(expect.any(String));
  // Another device, denied on the page ("Enter another code"): its poll answers access_denied.
  const denied = await startDevice(p);
  await page.click("#device-another");
  await page.fill("#device-lookup [name=userCode]", denied.user_code ?? "");
  await page.click("#device-lookup button[type=submit]");
  await answerDevice(f, page, lang, false);
  expect((await poll(p, denied.device_code ?? "")).body.error).toBe("access_denied");
}

/** The security page's authorized apps: the browser app listed, revoked after the question, its refresh token refused. */
async function revokeOnSecurityPage(
  f: BrowserFixture,
  page: Page,
  p: Provider,
  lang: Lang,
  refreshToken: string,
) {
  await page.goto(`${p.base}/settings/security`);
  await expect.poll(() => visible(page, "#apps-card")).toBe(true);
  expect(await page.locator("#apps-card h2").textContent()).toBe(WORDS.appsTitle[lang]);
  const item = page.locator("#apps-list li");
  await expect.poll(() => item.count()).toBe(1);
  expect(await item.locator("strong").textContent()).toBe("Browser App");
  expect(await item.locator(".app-scopes").textContent()).toBe(WORDS.scopes[lang].join(" · "));
  await shotAndFit(f, page, `46d-apps-${lang}`);
  await page.getByRole("button", { name: WORDS.revokeNamed("Browser App")[lang], exact: true }).click();
  await page.getByRole("button", { name: WORDS.revokeYes[lang], exact: true }).click();
  await say(page, lang, WORDS.revoked("Browser App"));
  await expect.poll(() => item.allTextContents()).toEqual([WORDS.noApps[lang]]);
  const refused = await tokenRequest(p, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: "browser-app",
  });
  expect([refused.status, refused.body.error]).toEqual([400, "invalid_grant"]);
}

/** The browser tests of this area, by name. */
export const oauthProviderTests: BrowserTests = {
  "oauth provider (46a) - a relying party's authorization: signed out to the sign-in page, back to the consent page (client, scopes in words, origin), Allow: the redirect URI gets code and state, the code gives verified tokens once, in English and German at 375 and 1280 px":
    withTimeout(90_000, (f) =>
      withProvider(f, async (p) => {
        for (const [locale, lang] of LOCALES)
          await f.inNewPage({ locale }, (page) =>
            authorizeInBrowser(f, page, p, lang, `oauth-${lang}`).then(() => {}),
          )();
      }),
    ),

  "oauth provider (46b) - the sign-in page goes back to a returnTo of its own origin only; prompt=consent with an unknown scope shows its name and Deny answers access_denied; prompt=login shows the sign-in form while signed in (reauth=1), then the code; signed in elsewhere (an identity provider), /login?resume=1 goes on to the kept authorization, in English and German at 375 and 1280 px":
    withTimeout(90_000, (f) =>
      withProvider(f, async (p) => {
        for (const [locale, lang] of LOCALES) {
          const { email } = await accountOf(f, p, `oauth-again-${lang}`);
          await f.inNewPage({ locale }, async (page) => {
            await refusesForeignReturnTo(page, p, email);
            await consentThenDeny(page, p, lang);
            await signInAgain(f, page, p, lang, email);
          })();
          await f.inNewPage({ locale }, (page) => resumedAfterLeaving(page, p, email))();
        }
      }),
    ),

  "oauth provider (46c) - the device page: a device authorization started with fetch, the code entered on /device (prefilled from ?userCode= after the sign-in, or typed after a wrong one), Approve: the poll gets tokens; Deny: access_denied, in English and German at 375 and 1280 px":
    withTimeout(120_000, (f) =>
      withProvider(f, async (p) => {
        for (const [locale, lang] of LOCALES)
          await f.inNewPage({ locale }, (page) => deviceFlow(f, page, p, lang))();
      }),
    ),

  "oauth provider (46d) - authorized apps on the security page: the app listed with its scopes, Revoke after a question removes it and its refresh token stops working; without OAUTH_PROVIDER there is no card, in English and German at 375 and 1280 px":
    withTimeout(120_000, async (f) => {
      await withProvider(f, async (p) => {
        for (const [locale, lang] of LOCALES)
          await f.inNewPage({ locale }, async (page) => {
            const { refreshToken } = await authorizeInBrowser(f, page, p, lang, `oauth-apps-${lang}`);
            await revokeOnSecurityPage(f, page, p, lang, refreshToken);
          })();
      });
      const email = await f.createAccount("oauth-off");
      await f.inNewPage(async (page) => {
        const asked: string[] = [];
        page.on("request", (r) => r.url().includes("/oauth2/") && asked.push(r.url()));
        const config = page.waitForResponse((r) => r.url().endsWith("/ui/config"));
        await f.signInAndWait(page, email);
        await page.click('nav a[href="/settings/security"]');
        expect((await (await config).json()).oauthProvider).toBe(false);
        await expect.poll(() => visible(page, "#trusted-card")).toBe(true);
        expect(await visible(page, "#apps-card")).toBe(false);
        // The provider is off: the list is never asked for (no 404 in the console).
        expect(asked).toEqual([]);
      })();
    }),
};
