import { randomBytes } from "node:crypto";
import type { IdentityStore } from "@portcullis/core";
import { describe, expect, it } from "vitest";
import { identityProviderAttackTests } from "./identity-provider-attacks.js";
import {
  api,
  CLIENT,
  callbackOf,
  createIdpBoot,
  errorOf,
  finishLink,
  hasSession,
  type IdentityProviderSuiteOptions,
  type IdpApp,
  type IdpBoot,
  me,
  newAccount,
  PASSWORD,
  PREFIX,
  passwordAccount,
  passwordLogin,
  passwordStepUp,
  signIn,
  steppedUpLink,
  TestBrowser,
  userIdOf,
} from "./identity-provider-fixture.js";

export type { IdentityProviderSuiteOptions } from "./identity-provider-fixture.js";

/** The tests by describe block ("" for none): name ("<method> - <behaviour>") → body, given the boot. */
type IdpTests = Record<string, Record<string, (boot: IdpBoot) => Promise<void>>>;

/**
 * Sign-in with an identity provider end to end (the "Identity providers" section of the core
 * README) through one adapter, against a real OpenID Connect provider (`oidc-provider`) on
 * 127.0.0.1: first and second sign-in, the password login to a provider account, linking with
 * step-up, the last sign-in method, and the attacks (state, nonce, audience, expiry, returnTo, an
 * unverified address) that must sign no one in. Each test starts its own provider and app.
 */
export function runIdentityProviderAdapterSuite(options: IdentityProviderSuiteOptions): void {
  describe(`identity providers: ${options.name}`, () => {
    const boot = createIdpBoot(options);
    for (const [group, tests] of Object.entries(identityProviderTests)) {
      const define = () => {
        for (const [name, test] of Object.entries(tests)) it(name, () => test(boot));
      };
      if (group) describe(group, define);
      else define();
    }
  });
}

/** A provider account signed in once, with a second provider's identity stored as linking it would. */
async function twoProviders(app: IdpApp) {
  const { id, browser } = newAccount(app);
  await signIn(app, browser);
  const userId = await userIdOf(app, browser);
  await app.stores.identities?.link({
    userId,
    provider: "corp",
    issuer: "https://corp.example.test",
    subject: id,
    email: null,
    createdAt: Date.now(),
  });
  await app.stores.users.update(userId, { identityProviders: ["oidc", "corp"] });
  return { browser, userId };
}

/**
 * Holds the first two `listByUser` reads of `userId` until both have happened (at most 2 s), so
 * two requests read the links before either removes one: the race, every time. `restore` undoes it.
 */
function holdLinkReads(identities: IdentityStore, userId: string) {
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
  const restore = () => {
    identities.listByUser = listByUser;
  };
  return { waiting, restore };
}

const identityProviderTests: IdpTests = {
  "": {
    "authorize - 302 to the provider with state, nonce and PKCE S256; the state in an HttpOnly Lax cookie":
      async (boot) => {
        const app = await boot();
        const { browser } = newAccount(app);
        const start = await browser.request(api(app, "/oauth/oidc/authorize?returnTo=%2Fwelcome"));
        expect(start.status).toBe(302);
        const url = new URL(start.location ?? "");
        expect(url.origin).toBe(app.provider.issuer);
        expect(url.searchParams.get("client_id")).toBe(CLIENT.clientId);
        expect(url.searchParams.get("redirect_uri")).toBe(api(app, "/oauth/oidc/callback"));
        expect(url.searchParams.get("code_challenge_method")).toBe("S256");
        expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(url.searchParams.get("nonce")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
        expect(url.searchParams.get("scope")).toBe("openid email profile");
        const state = url.searchParams.get("state") ?? "";
        expect(state.length).toBeGreaterThanOrEqual(43);
        const cookie = start.setCookies.find((line) => line.startsWith("oauth_state="));
        expect(cookie).toBe(
          `oauth_state=${state}; Max-Age=600; Path=${PREFIX}/oauth; HttpOnly; SameSite=Lax`,
        );
      },

    "first sign-in - creates a password-less account and signs in with the login cookies, 302 to returnTo":
      async (boot) => {
        const app = await boot();
        const { id, email, browser } = newAccount(app);
        const done = await signIn(app, browser, "?returnTo=%2Fwelcome%3Ftab%3D1");
        expect(done.status).toBe(302);
        expect(done.location).toBe(`${app.appOrigin}/welcome?tab=1`);
        expect(hasSession(done.setCookies)).toBe(true);
        expect(done.setCookies).toContain(
          `oauth_state=; Max-Age=0; Path=${PREFIX}/oauth; HttpOnly; SameSite=Lax`,
        );
        const user = await me(app, browser);
        expect(user.status).toBe(200);
        expect(JSON.parse(user.body)).toMatchObject({
          email,
          emailVerified: true,
          hasPassword: false,
          identityProviders: ["oidc"],
          name: expect.stringMatching(/^User /),
        });
        const userId = JSON.parse(user.body).id as string;
        expect(await app.stores.identities?.findBySubject(app.provider.issuer, id)).toMatchObject({
          userId,
          provider: "oidc",
          email,
        });
        const mine = app.events
          .filter((event) => event.userId === userId)
          .map((e) => `${e.type} ${e.reason}`);
        expect(mine).toEqual(
          expect.arrayContaining([
            "user.created oidc:oidc",
            "identity.linked oidc:oidc",
            "login.succeeded oidc:oidc",
            "session.created oidc:oidc",
          ]),
        );
      },

    "second sign-in - finds the same account by issuer and subject; a login alert only from a browser the account does not know":
      async (boot) => {
        const app = await boot();
        const { id, email, browser } = newAccount(app);
        const alerts = async () => {
          await app.auth.idle();
          return app.outbox.list().filter((entry) => entry.to === email && entry.kind === "login-alert")
            .length;
        };
        const signedUp = await signIn(app, browser);
        expect(signedUp.setCookies.some((line) => /^device_token=[^;]/.test(line))).toBe(true);
        const first = await userIdOf(app, browser);
        // The sign-up is a registration: its browser is known, and no alert goes out for it.
        expect(await alerts()).toBe(0);
        const again = await signIn(app, browser);
        expect(again.location).toBe(`${app.appOrigin}/`);
        expect(hasSession(again.setCookies)).toBe(true);
        expect(await userIdOf(app, browser)).toBe(first);
        expect(await alerts()).toBe(0);
        const laptop = new TestBrowser(id);
        expect(hasSession((await signIn(app, laptop)).setCookies)).toBe(true);
        expect(await userIdOf(app, laptop)).toBe(first);
        expect(await alerts()).toBe(1);
        const created = app.events.filter(
          (event) => event.userId === first && event.type === "session.created",
        );
        expect(created.map((event) => event.reason)).toEqual(["oidc:oidc", "oidc:oidc", "oidc:oidc"]);
      },

    "password login - to a provider account: 401 INVALID_CREDENTIALS and the Identity Provider Information email":
      async (boot) => {
        const app = await boot();
        const { email, browser } = newAccount(app);
        await signIn(app, browser);
        const login = await fetch(api(app, "/login"), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        expect(login.status).toBe(401);
        expect(((await login.json()) as { code: string }).code).toBe("INVALID_CREDENTIALS");
        await app.auth.idle();
        expect(
          app.outbox.list().some((m) => m.kind === "identity-provider-information" && m.to === email),
        ).toBe(true);
      },

    "link - from the settings needs step-up, then links the provider identity to the signed-in account":
      async (boot) => {
        const app = await boot();
        const account = newAccount(app, true, `linker-${randomBytes(4).toString("hex")}@example.test`);
        const ownEmail = `owner-${randomBytes(4).toString("hex")}@example.test`;
        await passwordAccount(app, ownEmail, false);
        const bearer = await passwordLogin(app, ownEmail);
        const withoutStepUp = await fetch(api(app, "/oauth/oidc/link"), {
          method: "POST",
          headers: bearer,
          body: "{}",
        });
        expect(withoutStepUp.status).toBe(401);
        expect(((await withoutStepUp.json()) as { code: string }).code).toBe("STEP_UP_REQUIRED");
        const link = await steppedUpLink(app, bearer, "/settings");
        expect(link.status).toBe(200);
        const done = await finishLink(app, link, account.browser);
        expect(done.location).toBe(`${app.appOrigin}/settings?linked=oidc`);
        expect(hasSession(done.setCookies)).toBe(false);
        const user = await fetch(api(app, "/me"), { headers: bearer });
        expect(await user.json()).toMatchObject({
          email: ownEmail,
          hasPassword: true,
          identityProviders: ["oidc"],
        });
        // Signing in with the provider now opens that account (not a new one by the provider's address).
        const viaProvider = await signIn(app, new TestBrowser(account.id));
        expect(hasSession(viaProvider.setCookies)).toBe(true);
        expect(await app.stores.users.findByEmail(account.email)).toBeNull();
        // And the provider can be unlinked again (the password remains), with a fresh step-up.
        const unlink = await fetch(api(app, "/oauth/oidc"), {
          method: "DELETE",
          headers: {
            authorization: bearer.authorization ?? "",
            "x-step-up-token": await passwordStepUp(app, bearer),
          },
        });
        expect(unlink.status).toBe(200);
        expect(await unlink.json()).toMatchObject({ identityProviders: [], hasPassword: true });
        expect(app.events.some((e) => e.type === "identity.unlinked" && e.reason === "oidc:oidc")).toBe(true);
        // Each of it is in the account's activity, newest first, the provider named.
        const activity = await fetch(api(app, "/activity"), { headers: bearer });
        const { items } = (await activity.json()) as { items: { type: string; reason: string | null }[] };
        expect(items.slice(0, 3).map((item) => `${item.type} ${item.reason}`)).toEqual([
          "identity.unlinked oidc:oidc",
          "login.succeeded oidc:oidc",
          "identity.linked oidc:oidc",
        ]);
      },

    "unlink - the last sign-in method is refused, also after a step-up at the provider (stepUp=1)": async (
      boot,
    ) => {
      const app = await boot();
      const { browser } = newAccount(app);
      await signIn(app, browser);
      const denied = await browser.request(api(app, "/oauth/oidc"), { method: "DELETE" });
      expect(denied.status).toBe(401);
      expect(JSON.parse(denied.body).code).toBe("STEP_UP_REQUIRED");
      const start = await browser.request(api(app, "/oauth/oidc/authorize?stepUp=1&returnTo=%2Fsettings"));
      const authorizationUrl = new URL(start.location ?? "");
      expect(authorizationUrl.searchParams.get("prompt")).toBe("login");
      const done = await browser.request(await browser.followUntil(start.location ?? "", callbackOf(app)));
      expect(done.location).toBe(`${app.appOrigin}/settings?stepUp=1`);
      expect(
        done.setCookies.some((line) => /^step_up_token=[^;]+; Max-Age=300; Path=\/api\/auth;/.test(line)),
      ).toBe(true);
      expect(hasSession(done.setCookies)).toBe(false);
      const refused = await browser.request(api(app, "/oauth/oidc"), { method: "DELETE" });
      expect(refused.status).toBe(409);
      expect(JSON.parse(refused.body).code).toBe("IDENTITY_PROVIDER_LAST_METHOD");
      expect(JSON.parse((await me(app, browser)).body).identityProviders).toEqual(["oidc"]);
    },

    "unlink - two concurrent unlinks of a password-less account's two providers: one 200, one 409 last method":
      async (boot) => {
        const app = await boot();
        const { browser, userId } = await twoProviders(app);
        const start = await browser.request(api(app, "/oauth/oidc/authorize?stepUp=1&returnTo=%2Fsettings"));
        await browser.request(await browser.followUntil(start.location ?? "", callbackOf(app)));
        const hold = holdLinkReads(app.stores.identities as IdentityStore, userId);
        const replies = await Promise.all(
          ["oidc", "corp"].map((name) => browser.request(api(app, `/oauth/${name}`), { method: "DELETE" })),
        ).finally(hold.restore);
        expect(hold.waiting).toHaveLength(2);
        expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
        const refused = replies.find((reply) => reply.status === 409);
        expect(JSON.parse(refused?.body ?? "{}").code).toBe("IDENTITY_PROVIDER_LAST_METHOD");
        const left = (await app.stores.identities?.listByUser(userId)) ?? [];
        expect(left).toHaveLength(1);
        const account = JSON.parse((await me(app, browser)).body);
        expect(account).toMatchObject({ hasPassword: false, identityProviders: [left[0]?.provider] });
      },

    "2FA - an account with 2FA gets the 2FA branch: the 2FA cookie, no session, 302 with twoFactor=login":
      async (boot) => {
        const app = await boot();
        const { email, browser } = newAccount(app);
        await signIn(app, browser);
        const user = await app.stores.users.findByEmail(email);
        await app.stores.users.update(user?.id ?? "", {
          twoFactor: {
            methods: ["email"],
            preferredMethod: "email",
            totpSecretEncrypted: null,
            recoveryCodeHashes: [],
          },
        });
        const done = await signIn(app, browser);
        expect(new URL(done.location ?? "").searchParams.get("twoFactor")).toBe("login");
        expect(hasSession(done.setCookies)).toBe(false);
        expect(done.setCookies.some((line) => /^two_factor_authentication_token=[^;]+;/.test(line))).toBe(
          true,
        );
      },

    "lock - a locked account's provider sign-in is refused (ACCOUNT_LOCKED, no session); after the unlock it signs in again":
      async (boot) => {
        const app = await boot();
        const { id, browser } = newAccount(app);
        await signIn(app, browser);
        const userId = await userIdOf(app, browser);
        await app.auth.host.lockUser({ actor: "support:test" }, { userId, reason: "chargeback" });
        // The lock ended the session the browser holds: its access cookie is refused at once.
        expect((await me(app, browser)).status).toBe(401);
        const refused = await signIn(app, browser);
        expect(refused.status).toBe(302);
        expect(new URL(refused.location ?? "").origin).toBe(app.appOrigin);
        expect(errorOf(refused.location)).toBe("ACCOUNT_LOCKED");
        expect(hasSession(refused.setCookies)).toBe(false);
        // A fresh browser of the same provider identity fares no better.
        const elsewhere = await signIn(app, new TestBrowser(id));
        expect(errorOf(elsewhere.location)).toBe("ACCOUNT_LOCKED");
        expect(hasSession(elsewhere.setCookies)).toBe(false);
        await app.auth.host.unlockUser({ actor: "support:test" }, userId);
        const again = await signIn(app, browser);
        expect(hasSession(again.setCookies)).toBe(true);
        expect(await userIdOf(app, browser)).toBe(userId);
      },
  },

  "attacks - never sign anyone in": identityProviderAttackTests,
};
