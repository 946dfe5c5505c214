import { referenceTotp } from "@portcullis/testing";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  type Box,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  expectHuman,
  expectStatus,
  LOCALES,
  PASSWORD,
  recordPosts,
  signedInAs,
  status,
  submitTwoFactorCode,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 42: the rough edges of the walk in Chromium -------------------------------------
/** Signs in with a wrong password until the page holds the sign-in button (the server's 429). */
const throttleSignIn = async (page: Page, email: string) => {
  const submit = page.locator("#login button[type=submit]");
  for (let tries = 0; tries < 10 && !(await submit.isDisabled()); tries++) {
    await page.fill("#login [name=email]", email);
    await page.fill("#login [name=password]", "not the password at all");
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/login"));
    // The page may hold the button just now, as it reads the previous 429: then it is held.
    const clicked = await submit.click({ timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (!clicked) {
      answered.catch(() => {});
      break;
    }
    await answered;
  }
  expect(await submit.isDisabled()).toBe(true);
};
/** The `name` of the focused element. */
const focusedName = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { name?: string } | null } }).document
        .activeElement?.name,
  );
/** The admin of ADMIN_EMAILS for `lang` (the back office's), made once. */
const adminOf = async (f: BrowserFixture, lang: string) => {
  const email = `back-office-${lang}@example.test`;
  if (!(await f.example.stores.users.findByEmail(email)))
    await f.example.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  return email;
};

/** The browser tests of this area, by name. */
export const pagePolishTests: BrowserTests = {
  "ui (42f) - a password reset ends the failed sign-ins' wait, in the tab that waits too, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`reset-wait-${lang}`);
        await f.inNewPage({ locale }, async (page, context) => {
          await page.goto(`${f.base}/login`);
          await throttleSignIn(page, email);
          expect(await visible(page, "#status-countdown")).toBe(true);
          const tab = await context.newPage();
          await tab.request.post(`${f.base}/api/auth/password/reset-request`, { data: { email } });
          const mail = await f.newestEmail("password-reset", email);
          await tab.goto(/https?:\/\/\S*reset-password\?token=[\w-]+/.exec(mail.text)?.[0] ?? "");
          await tab.fill("#reset-password [name=newPassword]", "a brand new passphrase 42");
          await tab.click("#reset-password button[type=submit]");
          await expect.poll(() => new URL(tab.url()).pathname).toBe("/login");
          // This tab's button is free at once: no wait left, on the page or on the server.
          await expect.poll(() => page.locator("#login button[type=submit]").isDisabled()).toBe(false);
          expect(await visible(tab, "#status-countdown")).toBe(false);
          expect(await visible(page, "#status-countdown")).toBe(false);
          await f.shot(page, `42f-reset-ends-wait-${lang}`);
          await f.signIn(page, email, "a brand new passphrase 42");
          await signedInAs(page, email);
        })();
      }
    }),

  "ui (42g) - a wrong or empty step-up code on Security: nothing sent when empty, the message under the field, which has the focus in view, in English and German at 375 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`step-up-code-${lang}`);
        const secret = await f.enableTwoFactor(email, { totp: true });
        await f.inNewPage({ locale, viewport: { width: 375, height: 700 } }, async (page) => {
          await f.signIn(page, email);
          await submitTwoFactorCode(page, referenceTotp(secret, Date.now()));
          await signedInAs(page, email);
          await page.click('nav a[href="/settings/security"]');
          await confirmPassword(page);
          await expect.poll(() => visible(page, "#step-up-code")).toBe(true);
          const sent = recordPosts(page);
          const input = page.locator("#step-up-code [name=code]");
          await page.click("#step-up-code button[type=submit]");
          expect(await input.getAttribute("aria-invalid")).toBe("true");
          expect(sent).toEqual([]);
          await input.fill("000000");
          await page.click("#step-up-code button[type=submit]");
          await expect.poll(() => page.locator("#step-up-code .field-error").count()).toBe(1);
          expectHuman(await page.locator("#step-up-code .field-error").textContent());
          expect(sent.length).toBe(1);
          expect(await focusedName(page)).toBe("code");
          const box = await input.boundingBox();
          expect(box && box.y >= 0 && box.y + box.height <= 700).toBe(true);
          await f.shot(page, `42g-step-up-code-${lang}`);
        })();
      }
    }),

  "ui (42h) - 'Revoke' on this device signs out on purpose, and each 'Revoke' is named with its device, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`revoke-this-${lang}`);
        const elsewhere = await f.signedInElsewhere(email);
        try {
          await f.inNewPage({ locale }, async (page) => {
            await f.signInAndWait(page, email);
            await expect.poll(() => page.locator("#sessions li").count()).toBe(2);
            const names = await page
              .locator("#sessions button")
              .evaluateAll((nodes) =>
                nodes.map((node) =>
                  (node as unknown as { getAttribute(n: string): string }).getAttribute("aria-label"),
                ),
              );
            expect(new Set(names).size).toBe(2);
            for (const line of await page.locator("#sessions strong").allTextContents())
              expect(names.some((name) => name?.includes(line))).toBe(true);
            await page
              .locator("#sessions li", { has: page.locator(".badge") })
              .locator("button")
              .click();
            await page.click("#confirm .confirm-yes");
            await expect.poll(() => visible(page, "#signed-out")).toBe(true);
            await expectStatus(
              page,
              lang,
              "This device's session was ended: you are signed out.",
              "Die Sitzung dieses Geräts wurde beendet: du bist abgemeldet.",
            );
            expect((await elsewhere.get("/api/auth/me")).status()).toBe(200);
          })();
        } finally {
          await elsewhere.dispose();
        }
      }
    }),

  "ui (42i) - no admin check and no console error on a non-admin's pages; the admin finds the back office, and '1 account shown' is singular, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`plain-user-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          const errors: string[] = [];
          const asked: string[] = [];
          // Signed in (a signed-out visitor's page load asks /me, answered 401, to find out).
          await f.signInAndWait(page, email);
          page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
          page.on("request", (r) => r.url().includes("/admin/") && asked.push(r.url()));
          for (const path of ["/account", "/settings/security", "/activity", "/settings/account"]) {
            await page.goto(`${f.base}${path}`);
            await signedInAs(page, email);
          }
          expect(errors).toEqual([]);
          expect(asked).toEqual([]);
          expect(await visible(page, "#nav-admin")).toBe(false);
        })();
        await f.inNewPage({ locale }, async (page) => {
          const admin = await adminOf(f, lang);
          await f.signInAndWait(page, admin);
          // From the first page load, before the back office was opened (`/me` says `isAdmin`).
          await page.goto(`${f.base}/account`);
          await expect.poll(() => visible(page, "#nav-admin")).toBe(true);
          await page.goto(`${f.base}/admin`);
          await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
          expect(await visible(page, "#nav-admin")).toBe(true);
          await confirmPassword(page, PASSWORD, "#admin-step-up ");
          await expect.poll(() => visible(page, "#admin-tools")).toBe(true);
          await page.fill("#admin-search [name=query]", email);
          await page.click("#admin-search button[type=submit]");
          await expectStatus(page, lang, "1 account shown.", "1 Konto angezeigt.");
          // The nav offers the back office on every page.
          await page.goto(`${f.base}/account`);
          await expect.poll(() => visible(page, "#nav-admin")).toBe(true);
        })();
      }
    }),

  "ui (42j) - the page title follows the view, radio groups have a legend, 'Sicherheitseinstellungen' fits at 375 px, in English and German":
    withTimeout(60_000, async (f) => {
      const titles = {
        en: ["Sign in · Portcullis example", "Security settings · Portcullis example"],
        de: ["Anmelden · Portcullis-Beispiel", "Sicherheitseinstellungen · Portcullis-Beispiel"],
      };
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`titles-${lang}`);
        await f.enableTwoFactor(email, { totp: true, email: true, preferred: "email" });
        await f.inNewPage({ locale, viewport: { width: 375, height: 900 } }, async (page) => {
          await page.goto(`${f.base}/login`);
          await expect.poll(() => page.title()).toBe(titles[lang][0]);
          const before = f.newestId();
          await f.signIn(page, email);
          await expect.poll(() => visible(page, "#two-factor-methods legend")).toBe(true);
          expect(await page.locator("#two-factor-methods legend").textContent()).not.toBe("");
          await f.finishWithEmailedCode(page, email, before);
          await page.click('nav a[href="/settings/security"]');
          await expect.poll(() => page.title()).toBe(titles[lang][1]);
          expect(await page.locator("#preferred-methods legend").textContent()).not.toBe("");
          const heading = page.locator("#security h1");
          const box = (await heading.evaluate((h) => ({
            s: (h as unknown as Box).scrollWidth,
            c: (h as unknown as Box).clientWidth,
          }))) as { s: number; c: number };
          expect(box.s).toBeLessThanOrEqual(box.c);
          expect(
            await page.locator("html").evaluate((h) => (h as unknown as Box).scrollWidth),
          ).toBeLessThanOrEqual(375);
          await confirmPassword(page);
          await expect.poll(() => visible(page, "#step-up-code")).toBe(true);
          await f.shot(page, `42j-security-title-${lang}`);
        })();
      }
    }),

  "ui (42k) - the status line is announced once and a 429's countdown ticks beside it, not in it, in English and German":
    async (f) => {
      for (const [locale, lang] of LOCALES) {
        await f.inNewPage({ locale }, async (page) => {
          await page.clock.install();
          await page.route("**/api/auth/login", (route) =>
            route.fulfill({
              status: 429,
              headers: { "content-type": "application/json", "auth-error-code": "LOGIN_THROTTLED" },
              body: JSON.stringify({ code: "LOGIN_THROTTLED", message: "Too many attempts.", remaining: 5 }),
            }),
          );
          await page.goto(`${f.base}/login`);
          // The live region is in the page before anything is said (a region made visible with its message is often not read).
          expect(await status(page).getAttribute("role")).toBe("status");
          expect(await status(page).getAttribute("hidden")).toBeNull();
          await page.evaluate(() => {
            const g = globalThis as unknown as {
              changes: number;
              document: { getElementById(id: string): unknown };
            };
            g.changes = 0;
            const Observer = (
              globalThis as unknown as {
                MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void };
              }
            ).MutationObserver;
            new Observer(() => {
              g.changes += 1;
            }).observe(g.document.getElementById("status"), {
              childList: true,
              characterData: true,
              subtree: true,
            });
          });
          await page.fill("#login [name=email]", "someone@example.test");
          await page.fill("#login [name=password]", PASSWORD);
          await page.click("#login button[type=submit]");
          const countdown = page.locator("#status-countdown");
          await expect
            .poll(() => countdown.textContent())
            .toContain(lang === "en" ? "Try again in 5" : "Versuche es in 5");
          const said = await status(page).textContent();
          expectHuman(said);
          await page.clock.runFor(3_000);
          expect(await countdown.textContent()).toContain(
            lang === "en" ? "Try again in 2" : "Versuche es in 2",
          );
          expect(await status(page).textContent()).toBe(said);
          expect(await page.evaluate(() => (globalThis as unknown as { changes: number }).changes)).toBe(1);
          expect(await countdown.getAttribute("aria-live")).toBeNull();
          expect(await countdown.getAttribute("role")).toBeNull();
          expect(await page.locator("#status #status-countdown").count()).toBe(0);
        })();
      }
    },

  "ui (42m) - where the server offers no email sign-in, the button says so once and goes away, in English and German":
    withTimeout(60_000, async (f) => {
      const other = await f.openOther({ EMAIL_SIGN_IN: "false" });
      try {
        for (const [locale, lang] of LOCALES)
          await f.inNewPage({ locale }, async (page) => {
            await page.goto(`${other.base}/login`);
            await page.fill("#login [name=email]", `nobody-${lang}@example.test`);
            await page.click("#email-sign-in-request");
            await expectStatus(
              page,
              lang,
              "Sign-in by email is not offered here. Sign in with your password.",
              "Die Anmeldung per E-Mail gibt es hier nicht. Melde dich mit deinem Passwort an.",
            );
            expect(await visible(page, "#email-sign-in-request")).toBe(false);
            expect(await visible(page, "#login")).toBe(true);
            expect(await focusedName(page)).toBe("password");
          })();
      } finally {
        await other.close();
      }
    }),
};
