import { randomBytes } from "node:crypto";
import {
  type Auth,
  type AuthOptions,
  createAuth,
  createOutboxMailer,
  type IdentityStore,
  type OutboxMailer,
  type SecurityEvent,
  silentLogger,
} from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";
import { hostileReturnTos, RETURN_TOS_TO_ANOTHER_ORIGIN } from "./hostile-return-to.js";
import { startTestOidcProvider, TEST_ACCOUNT_HEADER, type TestOidcProvider } from "./oidc-test-provider.js";

export interface IdentityProviderSuiteOptions {
  /** Shown in the describe block, e.g. "express". */
  name: string;
  /** Fresh stores for the suite's one app, with an `identities` store. */
  createStores: () => AuthOptions["stores"] & { close?: () => void };
  /** Serves `auth`'s routes with the adapter under test on `127.0.0.1:port`. */
  listen(auth: Auth, port: number): Promise<{ close(): Promise<void> }>;
}

const PREFIX = "/api/auth";
const PASSWORD = "correct horse battery staple";
const CLIENT = { clientId: "portcullis-app", clientSecret: randomBytes(24).toString("base64url") };
const OTHER = { clientId: "other-app", clientSecret: randomBytes(24).toString("base64url") };
const OTHER_REDIRECT = "http://127.0.0.1:9/other/callback";
/** ID tokens live a minute: the expiry test moves the app's clock past it (and openid-client's 30 s tolerance). */
const ID_TOKEN_TTL_SECONDS = 60;

/**
 * A browser without a browser: one cookie jar per origin (paths and SameSite are not modelled:
 * the core's attributes are asserted on the Set-Cookie headers instead), redirects by hand, and
 * the test account it signs in as at the provider.
 */
class TestBrowser {
  private readonly jars = new Map<string, Map<string, string>>();
  constructor(private readonly account: string) {}

  cookies(origin: string): Map<string, string> {
    let jar = this.jars.get(origin);
    if (!jar) {
      jar = new Map();
      this.jars.set(origin, jar);
    }
    return jar;
  }

  async request(url: string, init: { method?: string; headers?: Record<string, string> } = {}) {
    const { origin } = new URL(url);
    const jar = this.cookies(origin);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: {
        ...(cookie ? { cookie } : {}),
        [TEST_ACCOUNT_HEADER]: this.account,
        ...init.headers,
      },
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ""] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (/;\s*max-age=0/i.test(line) || /;\s*expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get("location");
    return {
      status: response.status,
      location: location === null ? null : new URL(location, url).href,
      setCookies,
      body: await response.text(),
    };
  }

  /** Follows redirects from `url` until one points at `until` (returned, not requested). */
  async followUntil(url: string, until: (next: string) => boolean): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 20; hop++) {
      const reply = await this.request(next);
      if (!reply.location)
        throw new Error(`${next} answered ${reply.status} without a redirect: ${reply.body}`);
      if (until(reply.location)) return reply.location;
      next = reply.location;
    }
    throw new Error("too many redirects");
  }
}

/**
 * Sign-in with an identity provider end to end (the "Identity providers" section of the core README) through one adapter, against a
 * real OpenID Connect provider (`oidc-provider`) on 127.0.0.1: first and second sign-in, the
 * password login to a provider account, linking with step-up, the last sign-in method, and the
 * attacks (state, nonce, audience, expiry, returnTo, an unverified address) that must sign no one in.
 */
export function runIdentityProviderAdapterSuite(options: IdentityProviderSuiteOptions): void {
  describe(`identity providers: ${options.name}`, () => {
    let provider: TestOidcProvider;
    let server: { close(): Promise<void> } | undefined;
    let stores: ReturnType<IdentityProviderSuiteOptions["createStores"]>;
    let auth: Auth;
    let appOrigin: string;
    let outbox: OutboxMailer;
    const events: SecurityEvent[] = [];
    /** Added to the app's clock (milliseconds). */
    let clockOffsetMs = 0;
    /** ID tokens the provider issued to the app, newest last. */
    const idTokens: string[] = [];
    /** Rewrites the provider's token response before the app sees it. */
    let tamper: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined;

    const providerFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (!new URL(url).pathname.endsWith("/token") || !response.ok) return response;
      const body = (await response.json()) as Record<string, unknown>;
      if (typeof body.id_token === "string") idTokens.push(body.id_token);
      return new Response(JSON.stringify(tamper ? tamper(body) : body), {
        status: response.status,
        headers: { "content-type": "application/json", "cache-control": "no-store" },
      });
    };

    beforeAll(async () => {
      const port = await freePort();
      appOrigin = `http://127.0.0.1:${port}`;
      provider = await startTestOidcProvider({
        client: { ...CLIENT, redirectUris: [`${appOrigin}${PREFIX}/oauth/oidc/callback`] },
        otherClient: { ...OTHER, redirectUris: [OTHER_REDIRECT] },
        idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS,
      });
      stores = options.createStores();
      outbox = createOutboxMailer();
      auth = createAuth({
        secret: randomBytes(48).toString("base64url"),
        stores,
        mailer: outbox,
        appOrigin,
        clock: { now: () => Date.now() + clockOffsetMs },
        logger: silentLogger,
        onEvent: (event) => {
          events.push(event);
        },
        identityProviders: [
          {
            type: "oidc",
            issuer: provider.issuer,
            clientId: CLIENT.clientId,
            clientSecret: CLIENT.clientSecret,
            allowInsecureRequests: true,
            fetch: providerFetch,
          },
        ],
      });
      await auth.ready();
      server = await options.listen(auth, port);
    });

    afterAll(async () => {
      await server?.close();
      await provider?.close();
      stores?.close?.();
    });

    const api = (path: string) => `${appOrigin}${PREFIX}${path}`;
    const isCallback = (url: string) => url.startsWith(api("/oauth/oidc/callback"));
    let accounts = 0;
    /** A fresh account at the provider, and a browser that signs in as it. */
    const newAccount = (emailVerified = true, email?: string) => {
      const id = `idp-user-${++accounts}-${randomBytes(4).toString("hex")}`;
      const address = email ?? `${id}@example.test`;
      provider.setAccount(id, { email: address, emailVerified, name: `User ${accounts}` });
      return { id, email: address, browser: new TestBrowser(id) };
    };
    /** authorize → the provider (login, consent) → the callback URL, not yet requested. */
    const toCallback = async (browser: TestBrowser, query = "") => {
      const start = await browser.request(api(`/oauth/oidc/authorize${query}`));
      expect(start.status).toBe(302);
      return browser.followUntil(start.location ?? "", isCallback);
    };
    const signIn = async (browser: TestBrowser, query = "") =>
      browser.request(await toCallback(browser, query));
    const me = (browser: TestBrowser) => browser.request(api("/me"));
    const errorOf = (location: string | null) => new URL(location ?? "http://x").searchParams.get("error");
    const hasSession = (setCookies: string[]) =>
      setCookies.some((line) => /^access_token=[^;]/.test(line) || /^refresh_token=[^;]/.test(line));
    const passwordAccount = async (email: string, emailVerified: boolean) =>
      auth.admin.createUser({}, { email, password: PASSWORD, emailVerified });
    /** The bearer and JSON headers of a password login to `email`. */
    const passwordLogin = async (email: string) => {
      const login = await fetch(api("/login"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      const { accessToken } = (await login.json()) as { accessToken: string };
      return { authorization: `Bearer ${accessToken}`, "content-type": "application/json" };
    };
    /** POST /oauth/oidc/link after a password step-up of the session of `bearer`. */
    const steppedUpLink = async (bearer: Record<string, string>, returnTo: string) => {
      const stepUp = await fetch(api("/step-up"), {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({ password: PASSWORD }),
      });
      const { stepUpToken } = (await stepUp.json()) as { stepUpToken: string };
      return fetch(api("/oauth/oidc/link"), {
        method: "POST",
        headers: { ...bearer, "x-step-up-token": stepUpToken },
        body: JSON.stringify({ returnTo }),
      });
    };

    it("authorize - 302 to the provider with state, nonce and PKCE S256; the state in an HttpOnly Lax cookie", async () => {
      const { browser } = newAccount();
      const start = await browser.request(api("/oauth/oidc/authorize?returnTo=%2Fwelcome"));
      expect(start.status).toBe(302);
      const url = new URL(start.location ?? "");
      expect(url.origin).toBe(provider.issuer);
      expect(url.searchParams.get("client_id")).toBe(CLIENT.clientId);
      expect(url.searchParams.get("redirect_uri")).toBe(api("/oauth/oidc/callback"));
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(url.searchParams.get("scope")).toBe("openid email profile");
      const state = url.searchParams.get("state") ?? "";
      expect(state.length).toBeGreaterThanOrEqual(43);
      const cookie = start.setCookies.find((line) => line.startsWith("oauth_state="));
      expect(cookie).toBe(`oauth_state=${state}; Max-Age=600; Path=${PREFIX}/oauth; HttpOnly; SameSite=Lax`);
    });

    it("first sign-in - creates a password-less account and signs in with the login cookies, 302 to returnTo", async () => {
      const { id, email, browser } = newAccount();
      const done = await signIn(browser, "?returnTo=%2Fwelcome%3Ftab%3D1");
      expect(done.status).toBe(302);
      expect(done.location).toBe(`${appOrigin}/welcome?tab=1`);
      expect(hasSession(done.setCookies)).toBe(true);
      expect(done.setCookies).toContain(
        `oauth_state=; Max-Age=0; Path=${PREFIX}/oauth; HttpOnly; SameSite=Lax`,
      );
      const user = await me(browser);
      expect(user.status).toBe(200);
      expect(JSON.parse(user.body)).toMatchObject({
        email,
        emailVerified: true,
        hasPassword: false,
        identityProviders: ["oidc"],
        name: expect.stringMatching(/^User /),
      });
      const userId = JSON.parse(user.body).id as string;
      expect(await stores.identities?.findBySubject(provider.issuer, id)).toMatchObject({
        userId,
        provider: "oidc",
        email,
      });
      const mine = events.filter((event) => event.userId === userId).map((e) => `${e.type} ${e.reason}`);
      expect(mine).toEqual(
        expect.arrayContaining([
          "user.created oidc:oidc",
          "identity.linked oidc:oidc",
          "login.succeeded oidc:oidc",
          "session.created oidc:oidc",
        ]),
      );
    });

    it("second sign-in - finds the same account by issuer and subject; only it sends a login alert", async () => {
      const { email, browser } = newAccount();
      const alerts = async () => {
        await auth.idle();
        return outbox.list().filter((entry) => entry.to === email && entry.kind === "login-alert").length;
      };
      await signIn(browser);
      const first = JSON.parse((await me(browser)).body).id;
      expect(await alerts()).toBe(0);
      const again = await signIn(browser);
      expect(again.location).toBe(`${appOrigin}/`);
      expect(hasSession(again.setCookies)).toBe(true);
      expect(JSON.parse((await me(browser)).body).id).toBe(first);
      expect(await alerts()).toBe(1);
      const created = events.filter((event) => event.userId === first && event.type === "session.created");
      expect(created.map((event) => event.reason)).toEqual(["oidc:oidc", "oidc:oidc"]);
    });

    it("password login - to a provider account: 401 INVALID_CREDENTIALS and the Identity Provider Information email", async () => {
      const { email, browser } = newAccount();
      await signIn(browser);
      const login = await fetch(api("/login"), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(login.status).toBe(401);
      expect(((await login.json()) as { code: string }).code).toBe("INVALID_CREDENTIALS");
      await auth.idle();
      expect(outbox.list().some((m) => m.kind === "identity-provider-information" && m.to === email)).toBe(
        true,
      );
    });

    it("link - from the settings needs step-up, then links the provider identity to the signed-in account", async () => {
      const account = newAccount(true, `linker-${randomBytes(4).toString("hex")}@example.test`);
      const ownEmail = `owner-${randomBytes(4).toString("hex")}@example.test`;
      await passwordAccount(ownEmail, false);
      const { browser } = account;
      const bearer = await passwordLogin(ownEmail);
      const withoutStepUp = await fetch(api("/oauth/oidc/link"), {
        method: "POST",
        headers: bearer,
        body: "{}",
      });
      expect(withoutStepUp.status).toBe(401);
      expect(((await withoutStepUp.json()) as { code: string }).code).toBe("STEP_UP_REQUIRED");
      const link = await steppedUpLink(bearer, "/settings");
      expect(link.status).toBe(200);
      const { authorizationUrl } = (await link.json()) as { authorizationUrl: string };
      const state = link.headers.getSetCookie().find((line) => line.startsWith("oauth_state=")) ?? "";
      browser.cookies(appOrigin).set("oauth_state", state.slice("oauth_state=".length, state.indexOf(";")));
      const callback = await browser.followUntil(authorizationUrl, isCallback);
      const done = await browser.request(callback);
      expect(done.location).toBe(`${appOrigin}/settings?linked=oidc`);
      expect(hasSession(done.setCookies)).toBe(false);
      const user = await fetch(api("/me"), { headers: bearer });
      expect(await user.json()).toMatchObject({
        email: ownEmail,
        hasPassword: true,
        identityProviders: ["oidc"],
      });
      // Signing in with the provider now opens that account (not a new one by the provider's address).
      const viaProvider = await signIn(new TestBrowser(account.id));
      expect(hasSession(viaProvider.setCookies)).toBe(true);
      expect(await stores.users.findByEmail(account.email)).toBeNull();
      // And the provider can be unlinked again (the password remains), with a fresh step-up.
      const again = await fetch(api("/step-up"), {
        method: "POST",
        headers: bearer,
        body: JSON.stringify({ password: PASSWORD }),
      });
      const unlink = await fetch(api("/oauth/oidc"), {
        method: "DELETE",
        headers: {
          authorization: bearer.authorization,
          "x-step-up-token": ((await again.json()) as { stepUpToken: string }).stepUpToken,
        },
      });
      expect(unlink.status).toBe(200);
      expect(await unlink.json()).toMatchObject({ identityProviders: [], hasPassword: true });
      expect(events.some((e) => e.type === "identity.unlinked" && e.reason === "oidc:oidc")).toBe(true);
    });

    it("unlink - the last sign-in method is refused, also after a step-up at the provider (stepUp=1)", async () => {
      const { browser } = newAccount();
      await signIn(browser);
      const denied = await browser.request(api("/oauth/oidc"), { method: "DELETE" });
      expect(denied.status).toBe(401);
      expect(JSON.parse(denied.body).code).toBe("STEP_UP_REQUIRED");
      const start = await browser.request(api("/oauth/oidc/authorize?stepUp=1&returnTo=%2Fsettings"));
      const authorizationUrl = new URL(start.location ?? "");
      expect(authorizationUrl.searchParams.get("prompt")).toBe("login");
      const done = await browser.request(await browser.followUntil(start.location ?? "", isCallback));
      expect(done.location).toBe(`${appOrigin}/settings?stepUp=1`);
      expect(
        done.setCookies.some((line) => /^step_up_token=[^;]+; Max-Age=300; Path=\/api\/auth;/.test(line)),
      ).toBe(true);
      expect(hasSession(done.setCookies)).toBe(false);
      const refused = await browser.request(api("/oauth/oidc"), { method: "DELETE" });
      expect(refused.status).toBe(409);
      expect(JSON.parse(refused.body).code).toBe("IDENTITY_PROVIDER_LAST_METHOD");
      expect(JSON.parse((await me(browser)).body).identityProviders).toEqual(["oidc"]);
    });

    it("unlink - two concurrent unlinks of a password-less account's two providers: one 200, one 409 last method", async () => {
      const { id, browser } = newAccount();
      await signIn(browser);
      const userId = JSON.parse((await me(browser)).body).id as string;
      // A second provider's identity, stored as linking it from the settings would.
      await stores.identities?.link({
        userId,
        provider: "corp",
        issuer: "https://corp.example.test",
        subject: id,
        email: null,
        createdAt: Date.now(),
      });
      await stores.users.update(userId, { identityProviders: ["oidc", "corp"] });
      const start = await browser.request(api("/oauth/oidc/authorize?stepUp=1&returnTo=%2Fsettings"));
      await browser.request(await browser.followUntil(start.location ?? "", isCallback));
      // Both requests read the account's links before either removes one: the race, every time.
      const identities = stores.identities as IdentityStore;
      const listByUser = identities.listByUser;
      const waiting: (() => void)[] = [];
      identities.listByUser = async (forUser) => {
        const links = await listByUser.call(identities, forUser);
        if (forUser === userId && waiting.length < 2) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) for (const release of waiting) release();
            else setTimeout(resolve, 2_000);
          });
        }
        return links;
      };
      const replies = await Promise.all(
        ["oidc", "corp"].map((name) => browser.request(api(`/oauth/${name}`), { method: "DELETE" })),
      ).finally(() => {
        identities.listByUser = listByUser;
      });
      expect(waiting).toHaveLength(2);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      const refused = replies.find((reply) => reply.status === 409);
      expect(JSON.parse(refused?.body ?? "{}").code).toBe("IDENTITY_PROVIDER_LAST_METHOD");
      const left = (await stores.identities?.listByUser(userId)) ?? [];
      expect(left).toHaveLength(1);
      const account = JSON.parse((await me(browser)).body);
      expect(account).toMatchObject({ hasPassword: false, identityProviders: [left[0]?.provider] });
    });

    it("2FA - an account with 2FA gets the 2FA branch: the 2FA cookie, no session, 302 with twoFactor=login", async () => {
      const { email, browser } = newAccount();
      await signIn(browser);
      const user = await stores.users.findByEmail(email);
      await stores.users.update(user?.id ?? "", {
        twoFactor: {
          methods: ["email"],
          preferredMethod: "email",
          totpSecretEncrypted: null,
          recoveryCodeHashes: [],
        },
      });
      const done = await signIn(browser);
      expect(new URL(done.location ?? "").searchParams.get("twoFactor")).toBe("login");
      expect(hasSession(done.setCookies)).toBe(false);
      expect(done.setCookies.some((line) => /^two_factor_authentication_token=[^;]+;/.test(line))).toBe(true);
    });

    describe("attacks - never sign anyone in", () => {
      it("a replayed state: the second use of a callback is IDENTITY_PROVIDER_STATE_INVALID", async () => {
        const { browser } = newAccount();
        const callback = await toCallback(browser);
        const stateCookie = browser.cookies(appOrigin).get("oauth_state") ?? "";
        expect(hasSession((await browser.request(callback)).setCookies)).toBe(true);
        const replayer = new TestBrowser("nobody");
        replayer.cookies(appOrigin).set("oauth_state", stateCookie);
        const replay = await replayer.request(callback);
        expect(replay.status).toBe(302);
        expect(errorOf(replay.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
        expect(hasSession(replay.setCookies)).toBe(false);
      });

      it("a foreign state: a callback started in another browser, or without the state cookie", async () => {
        const attacker = newAccount();
        const callback = await toCallback(attacker.browser);
        const victim = new TestBrowser("victim");
        await victim.request(api("/oauth/oidc/authorize"));
        const foreign = await victim.request(callback);
        expect(errorOf(foreign.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
        expect(hasSession(foreign.setCookies)).toBe(false);
        const noCookie = await new TestBrowser("none").request(callback);
        expect(errorOf(noCookie.location)).toBe("IDENTITY_PROVIDER_STATE_INVALID");
        expect(hasSession(noCookie.setCookies)).toBe(false);
        // The state was not spent by the failures: its own browser still completes.
        expect(hasSession((await attacker.browser.request(callback)).setCookies)).toBe(true);
      });

      it("a wrong nonce: an ID token of an earlier sign-in put in the token response", async () => {
        const { browser } = newAccount();
        await signIn(browser);
        const earlier = idTokens.at(-1);
        tamper = (body) => ({ ...body, id_token: earlier });
        try {
          const done = await signIn(browser);
          expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
          expect(hasSession(done.setCookies)).toBe(false);
        } finally {
          tamper = undefined;
        }
      });

      it("an ID token for another audience (another client's, with the very same nonce)", async () => {
        const { id, browser } = newAccount();
        const start = await browser.request(api("/oauth/oidc/authorize"));
        const nonce = new URL(start.location ?? "").searchParams.get("nonce") ?? "";
        const other = new TestBrowser(id);
        const otherAuthorize = new URL(`${provider.issuer}/auth`);
        for (const [key, value] of Object.entries({
          client_id: OTHER.clientId,
          redirect_uri: OTHER_REDIRECT,
          response_type: "code",
          scope: "openid email",
          nonce,
          state: "other-state",
        }))
          otherAuthorize.searchParams.set(key, value);
        const otherCallback = await other.followUntil(otherAuthorize.href, (url) =>
          url.startsWith(OTHER_REDIRECT),
        );
        const tokens = await fetch(`${provider.issuer}/token`, {
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
        const { id_token: foreignIdToken } = (await tokens.json()) as { id_token: string };
        expect(foreignIdToken).toMatch(/^ey/);
        tamper = (body) => ({ ...body, id_token: foreignIdToken });
        try {
          const done = await browser.request(await browser.followUntil(start.location ?? "", isCallback));
          expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
          expect(hasSession(done.setCookies)).toBe(false);
        } finally {
          tamper = undefined;
        }
      });

      it("an expired ID token (the app's clock past its exp)", async () => {
        const { browser } = newAccount();
        const callback = await toCallback(browser);
        clockOffsetMs = (ID_TOKEN_TTL_SECONDS + 60) * 1000;
        try {
          const done = await browser.request(callback);
          expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_REJECTED");
          expect(hasSession(done.setCookies)).toBe(false);
        } finally {
          clockOffsetMs = 0;
        }
      });

      it("a returnTo to another origin (or scheme-relative) is refused before the provider is asked", async () => {
        const { browser } = newAccount();
        for (const returnTo of [
          "https://evil.test/x",
          "//evil.test/x",
          "/\\evil.test",
          "javascript:alert(1)",
        ]) {
          const reply = await browser.request(
            api(`/oauth/oidc/authorize?returnTo=${encodeURIComponent(returnTo)}`),
          );
          expect(reply.status).toBe(400);
          expect(JSON.parse(reply.body).code).toBe("VALIDATION_FAILED");
          expect(reply.location).toBeNull();
        }
      });

      it("returnTo - property: every redirect of sign-in, step-up and link stays on appOrigin, or authorize is a 400", async () => {
        const values = [...RETURN_TOS_TO_ANOTHER_ORIGIN, ...hostileReturnTos(20_250_601, 36)];
        const onAppOrigin = (location: string | null, returnTo: string) => {
          // `location` is resolved against the callback URL, as a browser does.
          expect(new URL(location ?? "about:blank").origin, returnTo).toBe(appOrigin);
          expect(new URL(location ?? "about:blank").pathname.startsWith("//"), returnTo).toBe(false);
        };
        const refused = (
          reply: { status: number; body: string; location: string | null },
          returnTo: string,
        ) => {
          expect(reply.status, returnTo).toBe(400);
          expect(JSON.parse(reply.body).code, returnTo).toBe("VALIDATION_FAILED");
          expect(reply.location, returnTo).toBeNull();
        };
        let followed = 0;
        const { browser } = newAccount();
        for (const returnTo of values) {
          const query = `?returnTo=${encodeURIComponent(returnTo)}`;
          const start = await browser.request(api(`/oauth/oidc/authorize${query}`));
          if (start.status !== 302) {
            refused(start, returnTo);
            continue;
          }
          followed++;
          const done = await browser.request(await browser.followUntil(start.location ?? "", isCallback));
          expect(done.status, returnTo).toBe(302);
          expect(hasSession(done.setCookies), returnTo).toBe(true);
          onAppOrigin(done.location, returnTo);
          // The same browser, now signed in, steps up with the same returnTo.
          const stepUp = await browser.request(api(`/oauth/oidc/authorize${query}&stepUp=1`));
          expect(stepUp.status, returnTo).toBe(302);
          const steppedUp = await browser.request(
            await browser.followUntil(stepUp.location ?? "", isCallback),
          );
          expect(new URL(steppedUp.location ?? "about:blank").searchParams.get("stepUp"), returnTo).toBe("1");
          onAppOrigin(steppedUp.location, returnTo);
        }
        for (const returnTo of RETURN_TOS_TO_ANOTHER_ORIGIN) {
          const refusedStart = await browser.request(
            api(`/oauth/oidc/authorize?returnTo=${encodeURIComponent(returnTo)}&stepUp=1`),
          );
          refused(refusedStart, returnTo);
        }
        // Some generated values get through, so the callback's redirect is exercised.
        expect(followed).toBeGreaterThan(5);

        // Link: a password account with a step-up starts it with the returnTo in the body.
        const linked = [...RETURN_TOS_TO_ANOTHER_ORIGIN, "/settings/./../settings/%2e/x?tab=1#top"];
        for (const returnTo of linked) {
          const email = `link-return-${randomBytes(4).toString("hex")}@example.test`;
          await passwordAccount(email, true);
          const link = await steppedUpLink(await passwordLogin(email), returnTo);
          if (link.status !== 200) {
            expect(link.status, returnTo).toBe(400);
            expect(((await link.json()) as { code: string }).code, returnTo).toBe("VALIDATION_FAILED");
            continue;
          }
          const { authorizationUrl } = (await link.json()) as { authorizationUrl: string };
          const state = link.headers.getSetCookie().find((line) => line.startsWith("oauth_state=")) ?? "";
          const linker = newAccount().browser;
          linker
            .cookies(appOrigin)
            .set("oauth_state", state.slice("oauth_state=".length, state.indexOf(";")));
          const done = await linker.request(await linker.followUntil(authorizationUrl, isCallback));
          expect(done.location, returnTo).toBe(`${appOrigin}/settings/x?tab=1&linked=oidc#top`);
          onAppOrigin(done.location, returnTo);
        }
      });

      it("a provider address marked unverified colliding with an existing account: refused, nothing linked", async () => {
        const email = `taken-${randomBytes(4).toString("hex")}@example.test`;
        const owner = await passwordAccount(email, true);
        const { id, browser } = newAccount(false, email);
        const done = await signIn(browser);
        expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED");
        expect(hasSession(done.setCookies)).toBe(false);
        expect(await stores.identities?.findBySubject(provider.issuer, id)).toBeNull();
        expect((await stores.users.findById(owner.id))?.identityProviders).toEqual([]);
      });

      it("a verified provider address of an account whose own address is unverified: IDENTITY_PROVIDER_ACCOUNT_EXISTS", async () => {
        const email = `unverified-${randomBytes(4).toString("hex")}@example.test`;
        await passwordAccount(email, false);
        const { browser } = newAccount(true, email);
        const done = await signIn(browser);
        expect(errorOf(done.location)).toBe("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
        expect(hasSession(done.setCookies)).toBe(false);
      });

      it("an address both sides verified: the first sign-in links to the existing account", async () => {
        const email = `verified-${randomBytes(4).toString("hex")}@example.test`;
        const owner = await passwordAccount(email, true);
        const { browser } = newAccount(true, email);
        const done = await signIn(browser);
        expect(hasSession(done.setCookies)).toBe(true);
        expect(JSON.parse((await me(browser)).body)).toMatchObject({
          id: owner.id,
          hasPassword: true,
          identityProviders: ["oidc"],
        });
      });
    });
  });
}
