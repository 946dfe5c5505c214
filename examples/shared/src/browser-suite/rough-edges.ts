import { expect } from "vitest";
import {
  type Box,
  type BrowserTests,
  confirmPassword,
  expectHuman,
  expectStatus,
  LOCALES,
  recordPosts,
  signedInAs,
  status,
  submitTwoFactorCode,
  visible,
  withTimeout,
} from "./fixture.js";
import { focusedHeading } from "./sessions.js";

/** The browser tests of this area, by name. */
export const roughEdgesTests: BrowserTests = {
  "ui (27c) - the second step: no stale banner, a back link, a reload keeps it, recovery codes only with an authenticator app, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const emailOnly = await f.createAccount(`second-step-email-${lang}`);
        await f.enableTwoFactor(emailOnly, { email: true });
        const withApp = await f.createAccount(`second-step-totp-${lang}`);
        await f.enableTwoFactor(withApp, { totp: true });
        await f.inNewPage({ locale }, async (page, context) => {
          // A banner from before (a wrong password) does not stay on the second step.
          await f.signIn(page, emailOnly, "not the password");
          await expect.poll(() => status(page).isVisible()).toBe(true);
          await f.signIn(page, emailOnly);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await status(page).isVisible()).toBe(false);
          expect(await focusedHeading(page)).toBe(lang === "en" ? "H1:Second step" : "H1:Zweiter Schritt");
          expect(await visible(page, "#two-factor-recover")).toBe(false);
          // A reload keeps the second step, and says so.
          await page.reload();
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Your sign-in is waiting for its second step."
              : "Deine Anmeldung wartet auf den zweiten Schritt.",
          );
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#two-factor-back")).toBe(true);
          }
          await f.shot(page, `27c-second-step-${lang}`);
          expect(await page.locator("#two-factor-back").textContent()).toBe(
            lang === "en" ? "Back to sign in" : "Zurück zur Anmeldung",
          );
          await page.click("#two-factor-back");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          await page.reload();
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);

          await f.signIn(page, withApp);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          expect(await visible(page, "#two-factor-recover")).toBe(true);
          // A second step whose token ran out: back to the sign-in form, saying why.
          await page.reload();
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          await context.clearCookies({ name: "two_factor_authentication_token" });
          await submitTwoFactorCode(page, "123456");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "The sign-in took too long. Please sign in again."
              : "Die Anmeldung hat zu lange gedauert. Bitte melde dich erneut an.",
          );
        })();
      }
    }),

  "ui (27d) - dates and numbers follow the chosen language, not the browser's": async (f) => {
    const email = await f.createAccount("dates-de", { createdAt: Date.UTC(2024, 2, 5, 14, 7) });
    const [context, page] = await f.newPage({ locale: "en-US", timezoneId: "Europe/Berlin" });
    try {
      await f.signInAndWait(page, email);
      await page.selectOption("#language", "de");
      const rows = await page.locator("#me dt").allTextContents();
      const values = await page.locator("#me dd").allTextContents();
      expect(values[rows.indexOf("Mitglied seit")]).toBe("05.03.2024, 15:07");
      expect(await page.locator("#sessions").textContent()).toMatch(
        /angemeldet \d\d\.\d\d\.\d{4}, \d\d:\d\d/,
      );
    } finally {
      await context.close();
    }
  },

  "ui (27e) - a wrong password on the security page has its own message, in English and German": async (
    f,
  ) => {
    for (const [locale, lang] of LOCALES) {
      const email = await f.createAccount(`step-up-wrong-${lang}`);
      await f.inNewPage({ locale }, async (page) => {
        await f.signInAndWait(page, email);
        await page.click('nav a[href="/settings/security"]');
        await confirmPassword(page, "not the password");
        await expectStatus(
          page,
          lang,
          "That password is not right. Enter the password of this account.",
          "Dieses Passwort stimmt nicht. Gib das Passwort dieses Kontos ein.",
        );
        expect(await visible(page, "#settings")).toBe(false);
        await signedInAs(page, email);
      })();
    }
  },

  "ui (27f) - revoking a session and signing out everywhere ask first, in the page, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`confirm-${lang}`);
        const elsewhere = await f.signedInElsewhere(email);
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signInAndWait(page, email);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(2);
          // The other session's "Revoke": a question first; "Cancel" leaves both sessions.
          await page
            .locator("#sessions li", { hasNot: page.locator(".badge") })
            .locator("button")
            .click();
          await expect.poll(() => visible(page, "#confirm")).toBe(true);
          expect(await page.locator("#confirm-question").textContent()).toContain(
            lang === "en" ? "Sign out the session" : "Die Sitzung",
          );
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#confirm .confirm-yes")).toBe(true);
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await f.shot(page, `27f-confirm-${lang}`);
          await page.click("#confirm .confirm-cancel");
          expect(await visible(page, "#confirm")).toBe(false);
          expect(await page.locator("#sessions li").count()).toBe(2);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(200);
          // "Sign out everywhere": asked, then done only on "Yes".
          await page.click("#revoke-all");
          expect(await page.locator("#confirm .confirm-yes").textContent()).toBe(
            lang === "en" ? "Yes, sign out everywhere" : "Ja, überall abmelden",
          );
          await signedInAs(page, email);
          await page.click("#confirm .confirm-yes");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en" ? "Signed out everywhere" : "Überall abgemeldet",
          );
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    }),

  "ui (27g) - a 429 on sign-in disables the button for its countdown, in English and German": async (f) => {
    for (const [locale, lang] of LOCALES) {
      await f.inNewPage({ locale }, async (page) => {
        // The throttled answer as the API gives it (LOGIN_THROTTLED with `remaining`).
        await page.route("**/api/auth/login", (route) =>
          route.fulfill({
            status: 429,
            headers: { "content-type": "application/json", "auth-error-code": "LOGIN_THROTTLED" },
            body: JSON.stringify({ code: "LOGIN_THROTTLED", message: "Too many attempts.", remaining: 2 }),
          }),
        );
        await f.signIn(page, "someone@example.test");
        const submit = page.locator("#login button[type=submit]");
        await expect.poll(() => submit.isDisabled()).toBe(true);
        // The wait counts down beside the status line (which says the message once).
        expect(await page.locator("#status-countdown").textContent()).toContain(
          lang === "en" ? "Try again in" : "Versuche es in",
        );
        await expect.poll(() => submit.isDisabled(), { timeout: 5_000 }).toBe(false);
      })();
    }
  },

  "ui (27h) - focus moves to the new view's heading after a view change": async (f) => {
    const [context, page] = await f.newPage();
    try {
      await page.goto(`${f.base}/login`);
      await page.click('nav a[href="/signup"]');
      expect(await focusedHeading(page)).toBe("H1:Create an account");
      await page.click('#signup a[href="/login"]');
      expect(await focusedHeading(page)).toBe("H1:Sign in");
    } finally {
      await context.close();
    }
  },

  "ui (27i) - forms check every field before sending and show readable messages; API field errors land under their fields, in English and German":
    async (f) => {
      for (const [locale, lang] of LOCALES) {
        await f.inNewPage({ locale }, async (page) => {
          const sent = recordPosts(page);
          await page.goto(`${f.base}/login`);
          await page.click("#login button[type=submit]");
          const loginErrors = await page.locator("#login .field-error").allTextContents();
          expect(loginErrors).toEqual(
            lang === "en"
              ? ["Enter your email address.", "Enter your password."]
              : ["Gib deine E-Mail-Adresse ein.", "Gib dein Passwort ein."],
          );
          expect(await page.locator("#login [aria-invalid=true]").count()).toBe(2);
          for (const text of loginErrors) expectHuman(text);

          await page.goto(`${f.base}/signup`);
          await page.fill("#signup [name=email]", "not-an-address");
          await page.click("#signup button[type=submit]");
          expect(await page.locator("#signup .field-error").allTextContents()).toEqual(
            lang === "en"
              ? ["Enter an email address like name@example.com.", "Enter your password."]
              : ["Gib eine E-Mail-Adresse wie name@example.com ein.", "Gib dein Passwort ein."],
          );
          await f.shot(page, `27i-signup-fields-${lang}`);
          // Nothing was sent for either form (and a browser never signed in tries no refresh).
          expect(sent).toEqual([]);

          // The API's per-field errors: its message when it has one, else ours for the field.
          await page.route("**/api/auth/register", (route) =>
            route.fulfill({
              status: 400,
              headers: { "content-type": "application/json", "auth-error-code": "VALIDATION_ERROR" },
              body: JSON.stringify({
                code: "VALIDATION_ERROR",
                message: "x",
                errors: [
                  { path: "password", code: "too_short", message: "Use 12 characters or more." },
                  { path: "email", code: "invalid" },
                ],
              }),
            }),
          );
          await page.fill("#signup [name=email]", "someone@example.test");
          await page.fill("#signup [name=password]", "short");
          await page.click("#signup button[type=submit]");
          await expect.poll(() => page.locator("#signup .field-error").count()).toBe(2);
          expect(await page.locator("#signup [name=email] ~ .field-error").textContent()).toBe(
            lang === "en" ? "Enter a valid email address." : "Gib eine gültige E-Mail-Adresse ein.",
          );
          expect(await page.locator("#signup [name=password] ~ .field-error").textContent()).toBe(
            "Use 12 characters or more.",
          );
        })();
      }
    },
};
