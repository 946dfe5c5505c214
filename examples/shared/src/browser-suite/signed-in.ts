import { type Page, request } from "playwright-core";
import { expect } from "vitest";
import {
  type Box,
  type BrowserTests,
  inPage,
  PASSWORD,
  signedInAs,
  status,
  visible,
  withTimeout,
} from "./fixture.js";

/** The browser tests of this area, by name. */
export const signedInTests: BrowserTests = {
  "ui (i) - 'Keep me signed in' unticked: the auth cookies end with the browser session, on refresh too; ticked (the default): they expire later":
    inPage(async (f, page, context) => {
      const email = await f.createAccount("remember");
      const authCookies = async () =>
        (await context.cookies()).filter((cookie) => ["access_token", "refresh_token"].includes(cookie.name));
      await page.goto(`${f.base}/login`);
      expect(await page.locator("#login [name=rememberMe]").isChecked()).toBe(true);
      await page.fill("#login [name=email]", email);
      await page.fill("#login [name=password]", PASSWORD);
      await page.uncheck("#login [name=rememberMe]");
      await page.click("#login button[type=submit]");
      await signedInAs(page, email);
      // Playwright reports a cookie without Max-Age or Expires as `expires: -1`.
      expect((await authCookies()).map(({ name, expires }) => ({ name, expires }))).toEqual(
        expect.arrayContaining([
          { name: "access_token", expires: -1 },
          { name: "refresh_token", expires: -1 },
        ]),
      );
      const refreshed = await page.request.post(`${f.base}/api/auth/refresh`, {
        headers: { origin: f.base },
      });
      expect(refreshed.status()).toBe(200);
      const afterRefresh = await authCookies();
      expect(afterRefresh).toHaveLength(2);
      for (const cookie of afterRefresh) expect(cookie.expires).toBe(-1);

      await page.click("#logout");
      await expect.poll(() => visible(page, "#signed-out")).toBe(true);
      expect(await page.locator("#login [name=rememberMe]").isChecked()).toBe(true);
      await f.signInAndWait(page, email);
      const remembered = await authCookies();
      expect(remembered).toHaveLength(2);
      for (const cookie of remembered) expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
    }),

  "ui (h) - the session list marks this device; signing out the other sessions keeps this one, in English and German":
    async (f) => {
      for (const [locale, label, button, done] of [
        ["en-US", "This device", "Sign out other sessions", "Other sessions signed out (1)"],
        ["de-DE", "Dieses Gerät", "Andere Sitzungen abmelden", "Andere Sitzungen abgemeldet (1)"],
      ] as const) {
        const email = await f.createAccount(`sign-out-others-${locale.slice(0, 2)}`);
        // Another device: a session of its own, through the API.
        const elsewhere = await f.signedInElsewhere(email);
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signInAndWait(page, email);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(2);
          expect(await page.locator("#sessions .badge").allTextContents()).toEqual([label]);
          expect(await page.locator("#revoke-others").textContent()).toBe(button);
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(await visible(page, "#revoke-others")).toBe(true);
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await f.shot(page, `h-sessions-${locale}`);

          await page.click("#revoke-others");
          await page.click("#confirm .confirm-yes");
          await expect.poll(() => status(page).textContent()).toContain(done);
          await expect.poll(() => page.locator("#sessions li").count()).toBe(1);
          expect(await page.locator("#sessions .badge").allTextContents()).toEqual([label]);
          expect(await visible(page, "#revoke-others")).toBe(false);
          // This browser is still signed in after a reload; the other device is not.
          await page.reload();
          await signedInAs(page, email);
          expect((await elsewhere.get("/api/auth/me")).status()).toBe(401);
          await f.shot(page, `h-sessions-after-${locale}`);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    },

  "two tabs of one browser refresh at the same moment and both stay signed in": inPage(
    async (f, first, context) => {
      const email = await f.createAccount("two-tabs");
      await f.signInAndWait(first, email);
      const second = await context.newPage();
      await second.goto(f.base);
      await signedInAs(second, email);
      const cookie = async (name: string) =>
        (await context.cookies()).find((c) => c.name === name)?.value ?? "";
      const before = await cookie("refresh_token");
      expect(before).not.toBe("");

      // Both tabs wait for the same instant of the shared clock, then POST /refresh with the
      // one refresh cookie the browser holds; the answers' cookies land in the one jar. With no
      // reuse interval (REFRESH_REUSE_SECONDS=0) one of them answers 401 and both are signed out.
      const at = Date.now() + 500;
      const refreshAt = (page: Page) =>
        page.evaluate(async (when) => {
          // A real wait that stays: not a pause for some state but the meeting point of the two
          // tabs, so both send their refresh in the same instant (the race under test).
          await new Promise((resolve) => setTimeout(resolve, when - Date.now()));
          const response = await fetch("/api/auth/refresh", { method: "POST", credentials: "same-origin" });
          return { status: response.status, code: response.headers.get("auth-error-code") };
        }, at);
      const answers = await Promise.all([refreshAt(first), refreshAt(second)]);
      expect(answers).toEqual([
        { status: 200, code: null },
        { status: 200, code: null },
      ]);
      const after = await cookie("refresh_token");
      expect(after).not.toBe(before);

      // Both tabs still act as the user: after a reload, and on the API with the jar's cookies.
      for (const page of [first, second]) {
        await page.reload();
        await signedInAs(page, email);
      }
      const me = await first.evaluate(async () => (await fetch("/api/auth/me")).status);
      expect(me).toBe(200);
      // One session (no second one was started), and it refreshes on with the newest token.
      await expect.poll(() => first.locator("#sessions li").count()).toBe(1);
      const again = await second.evaluate(
        async () => (await fetch("/api/auth/refresh", { method: "POST" })).status,
      );
      expect(again).toBe(200);
    },
  ),
  // Two locales, each with 11 sign-in attempts, two viewports and three page loads: 19.4 s and
  // 20.03 s (past the default 20 s) in one CI run, 20.7 s alone beside a CI run.
  "ui (i) - the activity page lists the account's events in words, with time, browser and IP, and shows older ones on request, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, nav, signedIn, failed, more] of [
        ["en-US", "Activity", "Signed in (password)", "Failed sign-in (wrong password)", "Show older events"],
        [
          "de-DE",
          "Aktivität",
          "Angemeldet (Passwort)",
          "Fehlgeschlagene Anmeldung (falsches Passwort)",
          "Ältere Ereignisse zeigen",
        ],
      ] as const) {
        const email = await f.createAccount(`activity-${locale.slice(0, 2)}`);
        // Another device: 3 wrong passwords (below the login throttle), then 8 sign-ins.
        const elsewhere = await request.newContext({
          baseURL: f.base,
          extraHTTPHeaders: { origin: f.base },
          userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        });
        for (let i = 0; i < 3; i += 1)
          await elsewhere.fetch("/api/auth/login", {
            method: "POST",
            data: { email, password: "not the password at all" },
          });
        for (let i = 0; i < 8; i += 1)
          await f.call(elsewhere, "POST", "/login", { email, password: PASSWORD });
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signInAndWait(page, email);
          expect(await page.locator('nav a[href="/activity"]').textContent()).toBe(nav);
          await page.click('nav a[href="/activity"]');
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(10);
          expect(new URL(page.url()).pathname).toBe("/activity");
          const titles = await page.locator("#activity-list li strong").allTextContents();
          expect(titles.slice(0, 9)).toEqual(Array(9).fill(signedIn));
          expect(titles[9]).toBe(failed);
          const lines = await page.locator("#activity-list li small").allTextContents();
          expect(lines[1]).toMatch(/Firefox 128/);
          expect(lines[1]).toMatch(/Linux/);
          const text = (await page.locator("#activity").textContent()) ?? "";
          expect(text).not.toMatch(/login\.|_|\d{4}-\d\d-\d\dT|[{}]/);
          expect(await page.locator("#activity-more").textContent()).toBe(more);
          for (const width of [375, 1280]) {
            await page.setViewportSize({ width, height: 900 });
            expect(
              await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
            ).toBeLessThanOrEqual(width);
          }
          await f.shot(page, `i-activity-${locale}`);

          await page.click("#activity-more");
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(12);
          const all = await page.locator("#activity-list li strong").allTextContents();
          expect(all.filter((title) => title === failed)).toHaveLength(3);
          expect(await visible(page, "#activity-more")).toBe(false);
          await f.shot(page, `i-activity-older-${locale}`);
          // A reload of the page itself lands on it again.
          await page.reload();
          await expect.poll(() => page.locator("#activity-list li").count()).toBe(10);
        } finally {
          await elsewhere.dispose();
          await context.close();
        }
      }
    }),

  // Three pages and two sign-ins: past the default 20 s once in CI, beside the Express browser file.
  "ui (g) - the user is a readable profile, times are in the viewer's locale, the favicon loads": withTimeout(
    60_000,
    async (f) => {
      const createdAt = Date.UTC(2024, 2, 5, 14, 7);
      const email = await f.createAccount("profile", { name: "Grace Hopper", createdAt });
      const failed: string[] = [];
      const profile = async (locale: string, timezoneId: string) => {
        const [context, page] = await f.newPage({ locale, timezoneId });
        page.on("response", (response) => {
          if (response.status() >= 400 && !response.url().includes("/api/auth/")) failed.push(response.url());
        });
        await f.signInAndWait(page, email);
        const rows = await page.locator("#me dt").allTextContents();
        const values = await page.locator("#me dd").allTextContents();
        const text = (await page.locator("#signed-in").textContent()) ?? "";
        expect(text).not.toMatch(/[{}"]|\d{4}-\d\d-\d\dT/);
        const sessions = (await page.locator("#sessions").textContent()) ?? "";
        await f.shot(page, `g-account-${locale}`);
        await context.close();
        return { profile: Object.fromEntries(rows.map((row, i) => [row, values[i]])), sessions };
      };

      const english = await profile("en-US", "America/New_York");
      expect(english.profile).toMatchObject({
        Name: "Grace Hopper",
        "Email verified": "Yes",
        "Two-factor": "Off",
      });
      expect(english.profile["Member since"]?.replace(/\s/g, " ")).toBe("Mar 5, 2024, 9:07 AM");
      expect(english.sessions).toMatch(/signed in [A-Z][a-z]{2} \d{1,2}, \d{4}/);
      const german = await profile("de-DE", "Europe/Berlin");
      expect(german.profile).toMatchObject({ Name: "Grace Hopper", "E-Mail bestätigt": "Ja" });
      expect(german.profile["Mitglied seit"]).toBe("05.03.2024, 15:07");
      expect(german.sessions).toMatch(/angemeldet \d\d\.\d\d\.\d{4}, \d\d:\d\d/);
      expect(failed).toEqual([]);

      const [context, page] = await f.newPage();
      await page.goto(f.base);
      const icon = await page.locator('link[rel="icon"]').getAttribute("href");
      for (const path of [icon ?? "", "/favicon.ico"]) {
        const response = await page.request.get(new URL(path, f.base).href);
        expect({ path, status: response.status() }).toEqual({ path, status: 200 });
        expect(response.headers()["content-type"]).toMatch(/^image\//);
      }
      await context.close();
    },
  ),
};
