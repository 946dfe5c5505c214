import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  expectHuman,
  expectStatus,
  LOCALES,
  PASSWORD,
  signedInAs,
  status,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- The back office (issue 32) -----------------------------------------------------------
/** The admin of `lang` (one of ADMIN_EMAILS), created once, verified, with the test password. */
const adminAccount = async (f: BrowserFixture, lang: string) => {
  const email = `back-office-${lang}@example.test`;
  if (!(await f.example.stores.users.findByEmail(email)))
    await f.example.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  return email;
};
/** Signs the admin in, opens the back office and confirms the password there. */
const openBackOffice = async (f: BrowserFixture, page: Page, email: string) => {
  await f.signInAndWait(page, email);
  await page.goto(`${f.base}/admin`);
  await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
  await confirmPassword(page);
  await expect.poll(() => visible(page, "#admin-tools")).toBe(true);
};
/** Searches the back office and opens the user `email` from the list. */
const openUser = async (page: Page, email: string) => {
  await page.fill("#admin-search [name=query]", email);
  await page.click("#admin-search button[type=submit]");
  await page.locator("#admin-users button", { hasText: email }).click();
  await expect.poll(() => page.locator("#admin-detail-email").textContent()).toBe(email);
};
const dispatchVisibility = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { document: { dispatchEvent(event: unknown): void } }).document.dispatchEvent(
      new Event("visibilitychange"),
    ),
  );

/** The browser tests of this area, by name. */
export const backOfficeTests: BrowserTests = {
  "ui (32a) - the back office is in the nav of an admin from the first page load, never of a non-admin; a non-admin at /admin sees that it is for administrators, with no admin request, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`not-admin-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          // `/me` says `isAdmin: false`: no link, no admin request, and the page says so in words.
          const asked: string[] = [];
          page.on("request", (r) => r.url().includes("/api/auth/admin/") && asked.push(r.url()));
          await f.signInAndWait(page, email);
          expect(await visible(page, "#nav-admin")).toBe(false);
          await page.goto(`${f.base}/admin`);
          await expect.poll(() => visible(page, "#admin-denied")).toBe(true);
          expect(asked).toEqual([]);
          expect(await page.locator("#admin-denied").textContent()).toBe(
            lang === "en" ? "This page is for administrators." : "Diese Seite ist für Administratoren.",
          );
          expect(await visible(page, "#admin-tools")).toBe(false);
          expect(await visible(page, "#nav-admin")).toBe(false);
          await f.shot(page, `32a-not-admin-${lang}`);
        })();
        const [adminContext, adminPage] = await f.newPage({ locale });
        try {
          await f.signInAndWait(adminPage, await adminAccount(f, lang));
          // `/me` says `isAdmin: true`: the nav offers the back office before it was ever opened.
          await expect.poll(() => visible(adminPage, "#nav-admin")).toBe(true);
          expect(await adminPage.locator("#nav-admin").textContent()).toBe(
            lang === "en" ? "Back office" : "Backoffice",
          );
          await adminPage.click("#nav-admin");
          // The step-up of the security page, in the back office: nothing shows before it.
          await expect.poll(() => visible(adminPage, "#admin-step-up #step-up")).toBe(true);
          expect(await visible(adminPage, "#admin-tools")).toBe(false);
          await f.shot(adminPage, `32a-admin-step-up-${lang}`);
        } finally {
          await adminContext.close();
        }
      }
    }),

  "ui (32b) - search by address prefix, ten at a time, with load more until the last, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const prefix = `find-${lang}-${randomBytes(3).toString("hex")}`;
        for (let i = 0; i < 13; i++) await f.createAccount(`${prefix}-${String(i).padStart(2, "0")}`);
        await f.inNewPage({ locale }, async (page) => {
          await openBackOffice(f, page, await adminAccount(f, lang));
          await page.fill("#admin-search [name=query]", prefix.toUpperCase());
          await page.click("#admin-search button[type=submit]");
          await expect.poll(() => page.locator("#admin-users li").count()).toBe(10);
          expect(await visible(page, "#admin-more")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en" ? "10 accounts shown." : "10 Konten angezeigt.",
          );
          await f.shot(page, `32b-search-${lang}`);
          await page.click("#admin-more");
          await expect.poll(() => page.locator("#admin-users li").count()).toBe(13);
          const shown = await page.locator("#admin-users button").allTextContents();
          expect(shown).toEqual([...shown].sort());
          expect(new Set(shown).size).toBe(13);
          expect(shown.every((email) => email.startsWith(prefix))).toBe(true);
          expect(await visible(page, "#admin-more")).toBe(false);
          // A prefix nobody has: said in words.
          await page.fill("#admin-search [name=query]", `${prefix}-none`);
          await page.click("#admin-search button[type=submit]");
          await expect.poll(() => visible(page, "#admin-empty")).toBe(true);
          expect(await page.locator("#admin-users li").count()).toBe(0);
        })();
      }
    }),

  "ui (32c) - lock with a reason: the user's open page is signed out on its next call and cannot sign in (a readable message); unlock, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`lock-me-${lang}`);
        const [userContext, userPage] = await f.newPage({ locale });
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signInAndWait(userPage, email);
          await openBackOffice(f, page, await adminAccount(f, lang));
          await openUser(page, email);
          expect(await page.locator("#admin-sessions li").count()).toBe(1);
          await f.shot(page, `32c-detail-${lang}`);
          await page.fill("#admin-lock [name=reason]", "chargeback");
          await page.click("#admin-lock button[type=submit]");
          await expect.poll(() => visible(page, "#admin-unlock")).toBe(true);
          expect(await status(page).textContent()).toContain(email);
          expect(await page.locator("#admin-fields").textContent()).toContain("chargeback");
          expect(
            await page.locator("#admin-users li", { hasText: email }).locator(".tag").textContent(),
          ).toBe(lang === "en" ? "locked" : "gesperrt");
          expect(await page.locator("#admin-sessions li").count()).toBe(0);
          await f.shot(page, `32c-locked-${lang}`);

          // The user's page: its next call (the tab comes back into view) finds the session ended.
          await dispatchVisibility(userPage);
          await expect.poll(() => visible(userPage, "#signed-out")).toBe(true);
          expectHuman(await status(userPage).textContent());
          await userPage.fill("#login [name=email]", email);
          await userPage.fill("#login [name=password]", PASSWORD);
          await userPage.click("#login button[type=submit]");
          await expectStatus(
            userPage,
            lang,
            "This account is locked. Please contact support.",
            "Dieses Konto ist gesperrt. Bitte wende dich an den Support.",
          );
          expect(await visible(userPage, "#signed-out")).toBe(true);
          await f.shot(userPage, `32c-locked-sign-in-${lang}`);

          await page.click("#admin-unlock");
          await expect.poll(() => visible(page, "#admin-lock")).toBe(true);
          expect(await page.locator("#admin-users li", { hasText: email }).locator(".tag").count()).toBe(0);
          await userPage.click("#login button[type=submit]");
          await signedInAs(userPage, email);
        } finally {
          await userContext.close();
          await context.close();
        }
      }
    }),

  "ui (32d) - end every session of a user: its sessions elsewhere are refused at once, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`end-sessions-${lang}`);
        const elsewhere = await f.signedInElsewhere(email);
        const other = await f.signedInElsewhere(email);
        const [context, page] = await f.newPage({ locale });
        try {
          await openBackOffice(f, page, await adminAccount(f, lang));
          await openUser(page, email);
          expect(await page.locator("#admin-sessions li").count()).toBe(2);
          await page.click("#admin-end-sessions");
          await expect
            .poll(() => status(page).textContent())
            .toBe(lang === "en" ? "Sessions ended: 2." : "Beendete Sitzungen: 2.");
          await expect.poll(() => visible(page, "#admin-sessions-empty")).toBe(true);
          expect(await page.locator("#admin-end-sessions").isDisabled()).toBe(true);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          expect((await other.get("/api/auth/me")).status()).toBe(401);
          await f.shot(page, `32d-sessions-ended-${lang}`);
        } finally {
          await elsewhere.dispose();
          await other.dispose();
          await context.close();
        }
      }
    }),

  "ui (32e) - impersonate: the browser acts as the user (no token in the page), a banner names both and the end, ending it signs out, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`impersonate-me-${lang}`);
        const adminEmail = await adminAccount(f, lang);
        await f.inNewPage({ locale }, async (page, context) => {
          await openBackOffice(f, page, adminEmail);
          await openUser(page, email);
          // The answer, read on its way to the page (which moves on to /account at once).
          let body: Record<string, unknown> = {};
          await page.route("**/api/auth/admin/users/*/impersonate", async (route) => {
            const response = await route.fetch();
            body = (await response.json()) as Record<string, unknown>;
            await route.fulfill({ response });
          });
          await page.click("#admin-impersonate");
          await expect.poll(() => body.expiresAt).toBeDefined();
          // The tokens came as HttpOnly cookies, not to the page's script.
          expect(body.accessToken).toBeNull();
          expect(body.refreshToken).toBeNull();
          await signedInAs(page, email);
          const cookies = await context.cookies();
          expect(cookies.find((cookie) => cookie.name === "access_token")?.httpOnly).toBe(true);
          const banner = page.locator("#impersonation-banner");
          await expect.poll(() => banner.isVisible()).toBe(true);
          const text = (await banner.textContent()) ?? "";
          const ends = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(
            new Date(String(body.expiresAt)),
          );
          expect(text).toContain(
            lang === "en"
              ? `You are acting as ${email} (impersonated by ${adminEmail}), ends at ${ends}.`
              : `Du handelst als ${email} (übernommen von ${adminEmail}), endet um ${ends}.`,
          );
          expect(await visible(page, "#nav-admin")).toBe(false);
          await f.shot(page, `32e-impersonating-${lang}`);
          // Another tab of the browser is the user too, with the same banner.
          const tab = await context.newPage();
          await tab.goto(`${f.base}/account`);
          await expect.poll(() => tab.locator("#impersonation-banner").textContent()).toBe(text);
          await tab.close();
          // The impersonation cannot step up: the security page says so in words.
          await page.click('nav a[href="/settings/security"]');
          await confirmPassword(page);
          await expect.poll(() => status(page).textContent()).not.toBe("");
          expectHuman(await status(page).textContent());
          expect(await visible(page, "#settings")).toBe(false);
          await page.click("#impersonation-banner button");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await status(page).textContent()).toBe(
            lang === "en"
              ? "Impersonation ended. Sign in again with your own account."
              : "Übernahme beendet. Melde dich mit deinem eigenen Konto wieder an.",
          );
          expect(await banner.isVisible()).toBe(false);
          // The user's activity records it.
          const userId = (await f.example.stores.users.findByEmail(email))?.id ?? "";
          const events = await f.example.auth.host.listActivity({}, { userId });
          expect(events.items.map((item) => item.type)).toContain("impersonation.started");
        })();
      }
    }),

  "ui (32f) - axe-core finds no serious or critical violations on the back office (list, a locked user's detail) and with the impersonation banner, at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      const email = await f.createAccount("axe-back-office");
      const [context, page] = await f.newPage();
      const found: string[] = [];
      const check = async (view: string) => {
        found.push(...(await accessibilityFindings(page, view)));
      };
      try {
        await openBackOffice(f, page, await adminAccount(f, "en"));
        await openUser(page, email);
        await page.click("#admin-lock button[type=submit]");
        await expect.poll(() => visible(page, "#admin-unlock")).toBe(true);
        await check("back office, a locked user");
        await page.click("#admin-unlock");
        await expect.poll(() => visible(page, "#admin-lock")).toBe(true);
        await page.click("#admin-impersonate");
        await signedInAs(page, email);
        await expect.poll(() => visible(page, "#impersonation-banner")).toBe(true);
        await check("impersonation banner");
        await page.click("#impersonation-banner button");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    }),
};
