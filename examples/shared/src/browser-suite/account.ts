import { readFile } from "node:fs/promises";
import type { OutboxMailer } from "@portcullis/core";
import { type FakeRangeServer, freePort, startFakeRangeServer } from "@portcullis/testing";
import { type Page, request } from "playwright-core";
import { expect } from "vitest";
import { readConfig } from "../config.js";
import { createExampleAuth, type ExampleAuth } from "../setup.js";
import {
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  expectHuman,
  hasher,
  LOCALES,
  PASSWORD,
  signedInAs,
  status,
  submitTwoFactorCode,
  visible,
  withTimeout,
} from "./fixture.js";
import { focusedHeading } from "./sessions.js";

// ---- Issues 28 and 30: account settings, the breached-password prompt ---------------------
/** Opens the account settings from the account page's link, or from the nav's. */
const openAccountSettings = async (page: Page, from: "account" | "nav" = "account") => {
  await page.click(`${from === "nav" ? "nav" : "#signed-in"} a[href="/settings/account"]`);
  await expect.poll(() => visible(page, "#account-settings")).toBe(true);
};
/** Confirms the password in the step-up box the settings page shows (the security page's own). */
const stepUpInAccountSettings = async (page: Page) => {
  expect(await visible(page, "#account-changes")).toBe(false);
  await confirmPassword(page, PASSWORD, "#account-settings ");
  await expect.poll(() => visible(page, "#account-changes")).toBe(true);
};
/** The status of a password sign-in through the API (its own cookie jar, not the browser's). */
const loginStatus = async (f: BrowserFixture, email: string, password: string, origin = f.base) => {
  const api = await request.newContext({ baseURL: origin, extraHTTPHeaders: { origin } });
  try {
    return (await api.post("/api/auth/login", { data: { email, password } })).status();
  } finally {
    await api.dispose();
  }
};
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { activeElement: { id: string; name?: string } } })
      .document;
    return doc.activeElement.name || doc.activeElement.id;
  });
/**
 * A server of its own with the breached-password check on (BREACHED_PASSWORDS_URL) against a
 * fake range API on 127.0.0.1 that knows `breached`, for `test`.
 */
const withBreachedCheck = async (
  f: BrowserFixture,
  breached: string[],
  test: (origin: string, instance: ExampleAuth, api: FakeRangeServer) => Promise<void>,
) => {
  const api = await startFakeRangeServer(breached);
  const port = await freePort();
  const config = readConfig({
    PORT: String(port),
    AUTH_SECRET: "browser-test-secret-breached-0viRL3zW2SMQ_8FUEkbfGmZuCKl4LKq1Pw",
    BREACHED_PASSWORDS_URL: api.rangeUrl,
  });
  expect(config.breachedPasswordsUrl).toBe(api.rangeUrl);
  const instance = await createExampleAuth(config, { passwordHasher: hasher });
  const instanceServer = await f.start(instance, port);
  try {
    await test(config.appOrigin, instance, api);
  } finally {
    await instanceServer.close();
    instance.close();
    await api.stop();
  }
};
const NEW_PASSWORD = "a new passphrase for this account";

/** On the password form: a 429 (the route answered in the browser) disables the button for its countdown. */
const passwordChangeThrottled = async (page: Page, lang: string) => {
  const form = page.locator("#password-change");
  await page.route("**/api/auth/password/change", (route) =>
    route.fulfill({
      status: 429,
      headers: { "content-type": "application/json", "auth-error-code": "LOGIN_THROTTLED" },
      body: JSON.stringify({ code: "LOGIN_THROTTLED", message: "Too many attempts.", remaining: 2 }),
    }),
  );
  const submit = form.locator("button[type=submit]");
  await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
  await submit.click();
  await expect.poll(() => submit.isDisabled()).toBe(true);
  // The wait counts down beside the status line (which says the message once).
  expect(await page.locator("#status-countdown").textContent()).toContain(
    lang === "en" ? "Try again in" : "Versuche es in",
  );
  await expect.poll(() => submit.isDisabled(), { timeout: 5_000 }).toBe(false);
  await page.unroute("**/api/auth/password/change");
};

/** The browser tests of this area, by name. */
export const accountTests: BrowserTests = {
  "ui (28a) - change password: wrong current password, a policy error under its field, then success signs the other sessions out and the old password no longer works, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`password-change-${lang}`);
        const elsewhere = await f.signedInElsewhere(email);
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signInAndWait(page, email);
          await openAccountSettings(page, "nav");
          expect(await focusedHeading(page)).toBe(
            lang === "en" ? "H1:Account settings" : "H1:Kontoeinstellungen",
          );
          const form = page.locator("#password-change");
          // Empty: a message under each field, nothing sent.
          await form.locator("button[type=submit]").click();
          expect(await form.locator(".field-error").allTextContents()).toEqual(
            lang === "en"
              ? ["Enter your current password.", "Enter a new password."]
              : ["Gib dein aktuelles Passwort ein.", "Gib ein neues Passwort ein."],
          );
          // A wrong current password: its own words under the field, which has the focus.
          await form.locator("[name=currentPassword]").fill("not the password");
          await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
          await form.locator("button[type=submit]").click();
          const wrong =
            lang === "en" ? "Your current password is not right." : "Dein aktuelles Passwort stimmt nicht.";
          await expect
            .poll(() => form.locator("[name=currentPassword] ~ .field-error").textContent())
            .toBe(wrong);
          expect(await status(page).textContent()).toBe(wrong);
          expect(await form.locator("[name=currentPassword]").getAttribute("aria-invalid")).toBe("true");
          expect(await focusedName(page)).toBe("currentPassword");
          // The policy (8 characters at least): the API's field message under the new password.
          await form.locator("[name=currentPassword]").fill(PASSWORD);
          await form.locator("[name=newPassword]").fill("short");
          await form.locator("button[type=submit]").click();
          await expect.poll(() => form.locator("[name=newPassword] ~ .field-error").count()).toBe(1);
          expectHuman(await form.locator("[name=newPassword] ~ .field-error").textContent());
          expect(await form.locator("[name=currentPassword] ~ .field-error").count()).toBe(0);
          await f.shot(page, `28a-password-error-${lang}`);
          // A 429 (the current password shares the login budget): the button waits out the countdown.
          await passwordChangeThrottled(page, lang);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(200);
          // Success: said so, the other session is signed out, this one stays.
          await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
          await form.locator("button[type=submit]").click();
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "Password changed. Your other sessions were signed out."
                : "Passwort geändert. Deine anderen Sitzungen wurden abgemeldet.",
            );
          await expect.poll(() => form.locator("[name=currentPassword]").inputValue()).toBe("");
          await f.shot(page, `28a-password-changed-${lang}`);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          expect(await page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.status))).toBe(200);
          expect(await loginStatus(f, email, PASSWORD)).toBe(401);
          expect(await loginStatus(f, email, NEW_PASSWORD)).toBe(200);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    }),

  "ui (28b) - change email end to end: a step-up, the link from the outbox opens a page that confirms only on its button (a POST), the account shows the new address, the old one no longer signs in, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`email-change-${lang}`);
        const newEmail = `moved-${lang}-${f.accounts}@example.test`;
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, email);
          await openAccountSettings(page);
          // The address, the export and the deletion wait for the step-up; then the focus moves on.
          await f.shot(page, `28b-settings-step-up-${lang}`);
          await stepUpInAccountSettings(page);
          expect(await focusedName(page)).toBe("newEmail");
          expect(await page.locator("#email-change-current").textContent()).toContain(email);
          await page.fill("#email-change [name=newEmail]", "not-an-address");
          await page.click("#email-change button[type=submit]");
          expect(await page.locator("#email-change .field-error").allTextContents()).toEqual([
            lang === "en"
              ? "Enter an email address like name@example.com."
              : "Gib eine E-Mail-Adresse wie name@example.com ein.",
          ]);
          await page.fill("#email-change [name=newEmail]", newEmail);
          await page.click("#email-change button[type=submit]");
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? `Check your inbox at ${newEmail}: the link there confirms the new address.`
                : `Schau in dein Postfach unter ${newEmail}: Der Link dort bestätigt die neue Adresse.`,
            );
          await f.shot(page, `28b-email-sent-${lang}`);

          const link = await f.linkFromOutbox(page, "email-change", newEmail);
          expect(new URL(link).pathname).toBe("/confirm-email-change");
          // Opening the link (as a mail scanner would) changes nothing.
          await page.goto(link);
          await expect.poll(() => visible(page, "#email-change-confirm")).toBe(true);
          expect(await page.locator("#confirm-email-change h1").textContent()).toBe(
            lang === "en" ? "Confirm your new email address" : "Neue E-Mail-Adresse bestätigen",
          );
          expect(await f.example.stores.users.findByEmail(email)).not.toBeNull();
          expect(await f.example.stores.users.findByEmail(newEmail)).toBeNull();
          await f.shot(page, `28b-confirm-${lang}`);
          await page.click("#email-change-confirm");
          await expect.poll(() => page.locator("#email-change-result").textContent()).toContain(newEmail);
          expect(await page.locator("#email-change-result").getAttribute("class")).toBe("ok");
          expect(new URL(page.url()).search).toBe("");
          await f.shot(page, `28b-confirmed-${lang}`);
          await page.click('#confirm-email-change a[href="/"]');
          await signedInAs(page, newEmail);
          expect(await loginStatus(f, email, PASSWORD)).toBe(401);
          expect(await loginStatus(f, newEmail, PASSWORD)).toBe(200);
          await f.newestEmail("email-changed", email);
          // The link again: refused, in words.
          await page.goto(link);
          await page.click("#email-change-confirm");
          await expect.poll(() => page.locator("#email-change-result").getAttribute("class")).toBe("error");
          expectHuman(await page.locator("#email-change-result").textContent());
        })();
      }
    }),

  "ui (28c) - download my data gives a JSON file without hashes; delete account asks in the page, needs the step-up, and the account cannot sign in afterwards, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`delete-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, email);
          await openAccountSettings(page);
          await stepUpInAccountSettings(page);
          const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-data")]);
          expect(download.suggestedFilename()).toMatch(/\.json$/);
          const text = await readFile((await download.path()) ?? "", "utf8");
          const data = JSON.parse(text) as { user: { email: string }; sessions: unknown[] };
          expect(data.user.email).toBe(email);
          expect(data.sessions.length).toBeGreaterThan(0);
          expect(text).not.toMatch(/argon2|passwordHash|secret|recoveryCodeHashes|token/i);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your data was downloaded as a JSON file."
              : "Deine Daten wurden als JSON-Datei heruntergeladen.",
          );

          // Delete: a question in the page first; "Cancel" keeps the account.
          await page.click("#delete-account");
          await expect.poll(() => visible(page, "#delete-confirm")).toBe(true);
          expect(await focusedName(page)).toBe("delete-cancel");
          expect(await page.locator("#delete-question").textContent()).toContain(
            lang === "en" ? "Delete your account for good?" : "Dein Konto endgültig löschen?",
          );
          await f.shot(page, `28c-delete-confirm-${lang}`);
          await page.click("#delete-cancel");
          expect(await visible(page, "#delete-confirm")).toBe(false);
          expect(await focusedName(page)).toBe("delete-account");
          expect(await f.example.stores.users.findByEmail(email)).not.toBeNull();
          await page.click("#delete-account");
          await page.click("#delete-yes");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your account was deleted. Goodbye!"
              : "Dein Konto wurde gelöscht. Auf Wiedersehen!",
          );
          expect(await f.example.stores.users.findByEmail(email)).toBeNull();
          await f.signIn(page, email);
          await expect
            .poll(() => status(page).textContent())
            .toBe(
              lang === "en"
                ? "The email address or password is wrong."
                : "E-Mail-Adresse oder Passwort ist falsch.",
            );
        })();
      }
    }),

  "ui (30a) - a sign-in with a breached password leads to the change-password form; a breached new password is refused under its field, a clean one ends the prompt, in English and German":
    withTimeout(90_000, async (f) => {
      const BREACHED_NEW = "another leaked passphrase 2019";
      await withBreachedCheck(f, [PASSWORD, BREACHED_NEW], async (origin, instance, api) => {
        for (const [locale, lang] of LOCALES) {
          const email = await f.createAccount(`breached-${lang}`, {}, instance);
          await f.inNewPage({ locale }, async (page) => {
            await page.goto(`${origin}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await expect.poll(() => visible(page, "#breached-notice")).toBe(true);
            expect(new URL(page.url()).pathname).toBe("/settings/account");
            expect(await page.locator("#breached-notice").getAttribute("role")).toBe("alert");
            expect(await page.locator("#breached-notice h2").textContent()).toBe(
              lang === "en" ? "Your password is in a data breach" : "Dein Passwort steht in einem Datenleck",
            );
            expect(api.requests.length).toBeGreaterThan(0);
            await f.shot(page, `30a-breached-notice-${lang}`);
            await page.click("#breached-change");
            expect(await focusedName(page)).toBe("currentPassword");
            const form = page.locator("#password-change");
            await form.locator("[name=currentPassword]").fill(PASSWORD);
            await form.locator("[name=newPassword]").fill(BREACHED_NEW);
            await form.locator("button[type=submit]").click();
            await expect
              .poll(() => form.locator("[name=newPassword] ~ .field-error").textContent())
              .toContain(lang === "en" ? "data breach" : "Datenleck");
            expect(await form.locator("[name=newPassword]").getAttribute("aria-invalid")).toBe("true");
            await f.shot(page, `30a-breached-refused-${lang}`);
            await form.locator("[name=newPassword]").fill(NEW_PASSWORD);
            await form.locator("button[type=submit]").click();
            await expect.poll(() => visible(page, "#breached-notice")).toBe(false);
            expect(await status(page).textContent()).toContain(
              lang === "en" ? "Password changed" : "Passwort geändert",
            );
            // Signed in again with the new password: the account, no prompt.
            await page.click("#logout");
            await expect.poll(() => visible(page, "#signed-out")).toBe(true);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", NEW_PASSWORD);
            await page.click("#login button[type=submit]");
            await signedInAs(page, email);
            await expect.poll(() => new URL(page.url()).pathname).toBe("/account");
            expect(await visible(page, "#breached-notice")).toBe(false);
          })();
        }
      });
    }),

  "ui (30b) - a breached password with a second factor: the prompt follows the emailed code's sign-in, in English and German":
    withTimeout(60_000, async (f) => {
      await withBreachedCheck(f, [PASSWORD], async (origin, instance) => {
        const mails = instance.outbox as OutboxMailer;
        for (const [locale, lang] of LOCALES) {
          const email = await f.createAccount(`breached-2fa-${lang}`, {}, instance);
          const user = await instance.stores.users.findByEmail(email);
          await instance.stores.users.update(user?.id ?? "", {
            twoFactor: {
              methods: ["email"],
              preferredMethod: "email",
              totpSecretEncrypted: null,
              recoveryCodeHashes: [],
            },
          });
          await f.inNewPage({ locale }, async (page) => {
            await page.goto(`${origin}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await expect.poll(() => visible(page, "#two-factor")).toBe(true);
            // The password step says nothing yet: no notice before the second factor.
            expect(await visible(page, "#breached-notice")).toBe(false);
            const mailed = () => mails.list().find((m) => m.kind === "two-factor-code" && m.to === email);
            await expect.poll(mailed).toBeDefined();
            await submitTwoFactorCode(page, /\b(\d{6})\b/.exec(mailed()?.text ?? "")?.[1] ?? "");
            await expect.poll(() => visible(page, "#breached-notice")).toBe(true);
            expect(new URL(page.url()).pathname).toBe("/settings/account");
            expect(await page.locator("#breached-notice h2").textContent()).toBe(
              lang === "en" ? "Your password is in a data breach" : "Dein Passwort steht in einem Datenleck",
            );
          })();
        }
      });
    }),
};
