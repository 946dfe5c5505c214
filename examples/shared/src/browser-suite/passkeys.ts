import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import {
  type BrowserFixture,
  type BrowserTests,
  expectHuman,
  inPage,
  LOCALES,
  signedInAs,
  status,
  visible,
  withTimeout,
} from "./fixture.js";
import { authTraffic } from "./sessions.js";

// ---- Issue 29: passkeys, with Chromium's virtual authenticator ----------------------------
/**
 * A platform authenticator for `page` (CDP WebAuthn): resident keys, user verification that
 * passes. Chromium's virtual authenticator answers an autofill (conditional) request at once, as
 * if the user picked its passkey; without `autofill` the page is told the browser has no
 * autofill for passkeys, so the "Sign in with a passkey" button is what signs in. The mediation
 * of every `navigator.credentials.get()` is recorded in `window.passkeyRequests`.
 */
const virtualAuthenticator = async (context: BrowserContext, page: Page, autofill = false) => {
  await context.addInitScript((withAutofill: boolean) => {
    const scope = globalThis as unknown as {
      passkeyRequests: string[];
      navigator: { credentials: { get(options?: { mediation?: string }): Promise<unknown> } };
      PublicKeyCredential: { isConditionalMediationAvailable(): Promise<boolean> };
    };
    scope.passkeyRequests = [];
    const get = scope.navigator.credentials.get.bind(scope.navigator.credentials);
    scope.navigator.credentials.get = (options) => {
      scope.passkeyRequests.push(options?.mediation ?? "optional");
      return get(options);
    };
    if (!withAutofill) scope.PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  }, autofill);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
  };
};
const passkeyRequests = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { passkeyRequests: string[] }).passkeyRequests);
const PASSKEY_WORDS = {
  en: {
    added: "Passkey “Laptop” added.",
    stepUp: "Confirmed: you can change security settings for a few minutes.",
    renamed: "Passkey renamed.",
    removed: "Passkey removed.",
    last: "This is the account's last way to sign in.",
  },
  de: {
    added: "Passkey „Laptop“ hinzugefügt.",
    stepUp: "Bestätigt",
    renamed: "Passkey umbenannt.",
    removed: "Passkey entfernt.",
    last: "Dies ist die letzte Anmeldemöglichkeit des Kontos.",
  },
} as const;
/** The account's passkeys as the server keeps them. */
const storedPasskeys = async (f: BrowserFixture, email: string) => {
  const user = await f.example.stores.users.findByEmail(email);
  return f.example.stores.passkeys?.listByUser(user?.id ?? "") ?? [];
};
/** On the open settings: names a passkey and adds it with the virtual authenticator. */
const addPasskeyInSettings = async (page: Page, lang: "en" | "de") => {
  await expect.poll(() => visible(page, "#passkeys-card")).toBe(true);
  await page.fill("#passkey-add [name=name]", "Laptop");
  await page.click("#passkey-add button[type=submit]");
  await expect.poll(() => status(page).textContent(), { timeout: 10_000 }).toBe(PASSKEY_WORDS[lang].added);
  await expect.poll(() => page.locator("#passkey-list .passkey-name").allTextContents()).toEqual(["Laptop"]);
};
/** Signs out, then signs in on /login with the passkey button, no email typed. */
const signInWithPasskeyButton = async (f: BrowserFixture, page: Page, email: string, shotName?: string) => {
  await page.click("#logout");
  await expect.poll(() => visible(page, "#signed-out")).toBe(true);
  await page.goto(`${f.base}/login`);
  await expect.poll(() => visible(page, "#passkey-sign-in")).toBe(true);
  expect(await page.inputValue("#login [name=email]")).toBe("");
  if (shotName) await f.shot(page, shotName);
  await page.click("#passkey-sign-in");
  await signedInAs(page, email);
};
/** From the account page: the security page's step-up with the passkey. */
const stepUpWithPasskeyButton = async (page: Page, lang: "en" | "de") => {
  await page.click('nav a[href="/settings/security"]');
  await expect.poll(() => visible(page, "#step-up-passkey")).toBe(true);
  expect(await visible(page, "#settings")).toBe(false);
  await page.click("#step-up-passkey");
  await expect.poll(() => visible(page, "#settings")).toBe(true);
  expect(await status(page).textContent()).toContain(PASSKEY_WORDS[lang].stepUp);
};

/** The browser tests of this area, by name. */
export const passkeysTests: BrowserTests = {
  "ui (29a) - add a passkey, sign out, sign in with it without an email, step up with it, rename and remove it, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`passkey-${lang}`);
        await f.inNewPage({ locale }, async (page, context) => {
          const authenticator = await virtualAuthenticator(context, page);
          await f.openSettings(page, email);
          expect(await visible(page, "#passkeys-empty")).toBe(true);
          await f.shot(page, `passkeys-none-${lang}`);
          await addPasskeyInSettings(page, lang);
          const [credential] = await authenticator.credentials();
          expect(credential?.isResidentCredential).toBe(true);
          expect((await storedPasskeys(f, email)).map((p) => [p.id, p.name])).toEqual([
            [Buffer.from(credential?.credentialId ?? "", "base64").toString("base64url"), "Laptop"],
          ]);
          await f.shot(page, `passkeys-added-${lang}`);

          await signInWithPasskeyButton(f, page, email, `passkeys-sign-in-${lang}`);
          await f.shot(page, `passkeys-signed-in-${lang}`);
          await stepUpWithPasskeyButton(page, lang);

          await page.click("#passkey-list .passkey-rename");
          await page.fill("#passkey-list .passkey-rename [name=name]", "");
          await page.click("#passkey-list .passkey-rename button[type=submit]");
          await expect.poll(() => page.locator(".field-error").count()).toBe(1);
          await page.fill("#passkey-list .passkey-rename [name=name]", "Work laptop");
          await f.shot(page, `passkeys-rename-${lang}`);
          await page.click("#passkey-list .passkey-rename button[type=submit]");
          await expect.poll(() => status(page).textContent()).toBe(PASSKEY_WORDS[lang].renamed);
          await expect
            .poll(() => page.locator("#passkey-list .passkey-name").allTextContents())
            .toEqual(["Work laptop"]);
          expect((await storedPasskeys(f, email)).map((p) => p.name)).toEqual(["Work laptop"]);

          await page.click("#passkey-list .passkey-remove");
          await f.shot(page, `passkeys-remove-ask-${lang}`);
          await page.click("#passkey-list .passkey-remove-yes");
          await expect.poll(() => status(page).textContent()).toBe(PASSKEY_WORDS[lang].removed);
          await expect.poll(() => visible(page, "#passkeys-empty")).toBe(true);
          expect(await storedPasskeys(f, email)).toEqual([]);
          // Gone from the account: the next step-up (after a new sign-in; the step-up follows the
          // session, so a reload keeps it) offers the password only.
          await page.click("#logout");
          await f.signInAndWait(page, email);
          await page.click('nav a[href="/settings/security"]');
          await expect.poll(() => visible(page, "#step-up")).toBe(true);
          expect(await visible(page, "#step-up-passkey")).toBe(false);
          // The activity tells each change and the passkey sign-in, in the page's language.
          await page.click('nav a[href="/activity"]');
          await expect.poll(() => page.locator("#activity-list li strong").count()).toBeGreaterThan(3);
          const titles = await page.locator("#activity-list li strong").allTextContents();
          const words =
            lang === "en"
              ? ["Passkey removed", "Passkey renamed", "Passkey added", "Signed in (passkey)"]
              : ["Passkey entfernt", "Passkey umbenannt", "Passkey hinzugefügt", "Angemeldet (Passkey)"];
          for (const title of words) expect(titles, title).toContain(title);
        })();
      }
    }),

  "ui (29b) - a passkey-only account cannot remove its last passkey: the server's message, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`passkey-only-${lang}`);
        await f.inNewPage({ locale }, async (page, context) => {
          await virtualAuthenticator(context, page);
          await f.openSettings(page, email);
          await addPasskeyInSettings(page, lang);
          // The password goes (as for an account made by a provider): the passkey is all that is left.
          const user = await f.example.stores.users.findByEmail(email);
          await f.example.stores.users.update(user?.id ?? "", { passwordHash: null });
          await signInWithPasskeyButton(f, page, email);
          await page.click('nav a[href="/settings/security"]');
          await expect.poll(() => visible(page, "#step-up-passkey")).toBe(true);
          // No password to confirm with: only the passkey.
          expect(await visible(page, "#step-up")).toBe(false);
          await stepUpWithPasskeyButton(page, lang);
          await page.click("#passkey-list .passkey-remove");
          await page.click("#passkey-list .passkey-remove-yes");
          await expect.poll(() => status(page).textContent()).toContain(PASSKEY_WORDS[lang].last);
          expectHuman(await status(page).textContent());
          expect(await page.locator("#status").getAttribute("class")).toBe("error");
          await f.shot(page, `passkeys-last-method-${lang}`);
          expect(await storedPasskeys(f, email)).toHaveLength(1);
          expect(await page.locator("#passkey-list .passkey-name").allTextContents()).toEqual(["Laptop"]);
        })();
      }
    }),

  "ui (29c) - the sign-in page asks for a passkey through the email field's autofill (conditional UI): nothing shown without one, signed in with one":
    inPage(async (f, page, context) => {
      await virtualAuthenticator(context, page, true);
      const email = await f.createAccount("passkey-autofill");
      await page.goto(`${f.base}/login`);
      expect(await page.getAttribute("#login [name=email]", "autocomplete")).toBe("username webauthn");
      // The authenticator holds no passkey yet: the autofill request is refused, and the page stays quiet.
      await expect.poll(() => passkeyRequests(page), { timeout: 10_000 }).toEqual(["conditional"]);
      expect(await visible(page, "#status")).toBe(false);
      await f.openSettings(page, email);
      await addPasskeyInSettings(page, "en");
      // Signing out shows the sign-in view, which starts the autofill request; the authenticator
      // answers it with the passkey (as a user picking it in the email field would): signed in
      // again with no button pressed and no email typed.
      const traffic = authTraffic(page);
      await page.click("#logout");
      await expect.poll(() => traffic.includes("/passkeys/login 200"), { timeout: 10_000 }).toBe(true);
      expect(traffic.indexOf("/passkeys/login 200")).toBeGreaterThan(traffic.indexOf("/logout 200"));
      expect(traffic.indexOf("/logout 200")).toBeGreaterThanOrEqual(0);
      await expect.poll(() => visible(page, "#signed-in")).toBe(true);
      await signedInAs(page, email);
      const requests = await passkeyRequests(page);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.every((mediation) => mediation === "conditional")).toBe(true);
      expect(await page.inputValue("#login [name=email]")).toBe("");
    }),
};
