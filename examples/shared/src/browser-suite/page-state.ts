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
  signedInAs,
  status,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 42: the page's state in one place, email sign-in, a session ended elsewhere --------
/** The idle timeout of the app the idle test starts (SESSION_IDLE_SECONDS). */
const IDLE_SECONDS = 10;
/** The other language of the UI, and a switch to it with the page's language menu. */
const OTHER = { en: "de", de: "en" } as const;
const switchTo = (page: Page, lang: string) => page.selectOption("#language", lang);
const VERIFY = {
  checking: { en: "Checking your link…", de: "Link wird geprüft …" },
  done: { en: "Your email address is verified.", de: "Deine E-Mail-Adresse ist bestätigt." },
  noToken: {
    en: "This page needs the link from the verification email.",
    de: "Diese Seite braucht den Link aus der Bestätigungs-E-Mail.",
  },
};
/** A fresh verification link for an unverified account (sent from its own API session). */
const verificationLink = async (f: BrowserFixture, email: string) => {
  const api = await f.signedInElsewhere(email);
  await f.call(api, "POST", "/email/verification/send");
  await api.dispose();
  const mail = await f.newestEmail("email-verification", email);
  return /https?:\/\/\S*verify-email\?token=[\w-]+/.exec(mail.text)?.[0] ?? "";
};
/** The window gets the focus back (as when the user returns to the tab). */
const focusWindow = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { dispatchEvent(event: unknown): void }).dispatchEvent(new Event("focus")),
  );
/** True when nothing on the page is wider than the viewport. */
const fits = (page: Page) =>
  page
    .locator("html")
    .evaluate((html) => (html as unknown as Box).scrollWidth <= (html as unknown as Box).clientWidth);

/** The browser tests of this area, by name. */
export const pageStateTests: BrowserTests = {
  "ui (42a) - the verification page keeps its result on a language switch, a reload of the used link and without a token, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const other = OTHER[lang];
        const email = await f.createAccount(`verify-state-${lang}`, { verified: false });
        const link = await verificationLink(f, email);
        await f.inNewPage({ locale }, async (page) => {
          const result = page.locator("#verify-result");
          await page.goto(link);
          await expect.poll(() => result.textContent()).toBe(VERIFY.done[lang]);
          expect(await result.getAttribute("class")).toBe("ok");
          await switchTo(page, other);
          expect(await result.textContent()).toBe(VERIFY.done[other]);
          await switchTo(page, lang);
          expect(await result.textContent()).toBe(VERIFY.done[lang]);
          // The used link again: what the server says stays, never "Checking your link…".
          await page.reload();
          await expect.poll(() => result.getAttribute("class")).toMatch(/^(ok|error)$/);
          const again = await result.textContent();
          expectHuman(again);
          expect(again).not.toBe(VERIFY.checking[lang]);
          await switchTo(page, other);
          expect(await result.textContent()).not.toBe(VERIFY.checking[other]);
          expectHuman(await result.textContent());
          await switchTo(page, lang);
          await f.shot(page, `42a-verify-used-${lang}`);
          await page.goto(`${f.base}/verify-email`);
          await expect.poll(() => result.textContent()).toBe(VERIFY.noToken[lang]);
          await switchTo(page, other);
          expect(await result.textContent()).toBe(VERIFY.noToken[other]);
          await switchTo(page, lang);
        })();
      }
    }),

  "ui (42b) - the step-up box follows the session: hidden once used (account settings, another tab), shown again when it ran out elsewhere, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`step-up-state-${lang}`);
        await f.inNewPage({ locale }, async (page, context) => {
          const box = "#account-step-up #step-up-box";
          await f.signInAndWait(page, email);
          await page.click('nav a[href="/settings/account"]');
          await expect.poll(() => visible(page, box)).toBe(true);
          expect(await visible(page, "#account-changes")).toBe(false);
          await confirmPassword(page, PASSWORD, "#account-step-up ");
          await expect.poll(() => visible(page, "#account-changes")).toBe(true);
          expect(await visible(page, box)).toBe(false);
          await switchTo(page, OTHER[lang]);
          expect(await visible(page, box)).toBe(false);
          await switchTo(page, lang);
          await f.shot(page, `42b-step-up-used-${lang}`);
          // Another tab of the same session: no second step-up asked.
          const tab = await context.newPage();
          await tab.goto(`${f.base}/settings/security`);
          await expect.poll(() => visible(tab, "#settings")).toBe(true);
          expect(await visible(tab, "#step-up-box")).toBe(false);
          await tab.goto(`${f.base}/settings/account`);
          await expect.poll(() => visible(tab, "#account-changes")).toBe(true);
          expect(await visible(tab, box)).toBe(false);
          await tab.close();
          // The step-up ran out elsewhere (its cookie is gone): the next change asks for it again.
          await context.clearCookies({ name: "step_up_token" });
          await page.click("#export-data");
          await expect.poll(() => visible(page, box)).toBe(true);
          expect(await visible(page, "#account-changes")).toBe(false);
          expectHuman(await status(page).textContent());
          await f.shot(page, `42b-step-up-ran-out-${lang}`);
        })();
      }
    }),

  "ui (42c) - email sign-in from the sign-in form: 'email me a link or code', then the code typed in the page (a wrong one under its field), in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      const words = {
        en: { request: "Email me a link or code", title: "Sign in by email" },
        de: { request: "Link oder Code per E-Mail senden", title: "Per E-Mail anmelden" },
      };
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`email-code-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await page.goto(`${f.base}/login`);
          const request = page.locator("#email-sign-in-request");
          expect(await request.textContent()).toBe(words[lang].request);
          // Without an address: said under the field, nothing sent.
          await request.click();
          expect(await page.locator("#login [name=email]").getAttribute("aria-invalid")).toBe("true");
          await page.fill("#login [name=email]", email);
          await request.click();
          await expect.poll(() => visible(page, "#email-code")).toBe(true);
          expect(await visible(page, "#login")).toBe(false);
          expect(await page.locator("#email-code h1").textContent()).toBe(words[lang].title);
          expect(await page.locator("#email-code-lead").textContent()).toContain(email);
          // A re-render keeps the code's field.
          await switchTo(page, OTHER[lang]);
          expect(await page.locator("#email-code h1").textContent()).toBe(words[OTHER[lang]].title);
          await switchTo(page, lang);
          expect(await visible(page, "#email-code")).toBe(true);
          expect(await fits(page)).toBe(true);
          await f.shot(page, `42c-email-code-${lang}`);
          const code = /\b(\d{6})\b/.exec((await f.newestEmail("email-sign-in", email)).text)?.[1] ?? "";
          expect(code).toMatch(/^\d{6}$/);
          await page.fill("#email-code [name=code]", code === "000000" ? "111111" : "000000");
          await page.click("#email-code button[type=submit]");
          const input = page.locator("#email-code [name=code]");
          await expect.poll(() => input.getAttribute("aria-invalid")).toBe("true");
          expectHuman(await page.locator("#email-code .field-error").textContent());
          await page.fill("#email-code [name=code]", code);
          await page.click("#email-code button[type=submit]");
          await signedInAs(page, email);
        })();
      }
    }),

  "ui (42d) - the emailed sign-in link's page speaks the UI's language, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      const words = {
        en: { title: "Sign in by email", button: "Sign in", noToken: "This link has no sign-in token." },
        de: {
          title: "Per E-Mail anmelden",
          button: "Anmelden",
          noToken: "Dieser Link enthält kein Anmelde-Token.",
        },
      };
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`email-link-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await page.request.post(`${f.base}/api/auth/email-sign-in/request`, { data: { email } });
          const mail = await f.newestEmail("email-sign-in", email);
          const href = /href="([^"]+\?token=[^"]+)"/.exec(mail.html)?.[1]?.replace(/&amp;/g, "&") ?? "";
          await page.goto(`${f.base}/sign-in/email`);
          await expect.poll(() => page.locator("#status").textContent()).toContain(words[lang].noToken);
          await page.goto(href);
          await expect.poll(() => page.locator("html").getAttribute("lang")).toBe(lang);
          expect(await page.locator("h1").textContent()).toBe(words[lang].title);
          expect(await page.title()).toBe(words[lang].title);
          expect(await page.locator("#email-sign-in button").textContent()).toBe(words[lang].button);
          await page.setViewportSize({ width: 375, height: 900 });
          expect(await fits(page)).toBe(true);
          await f.shot(page, `42d-email-link-${lang}`);
          await page.click("#email-sign-in button");
          await page.waitForURL(`${f.base}/`);
          await signedInAs(page, email);
        })();
      }
    }),

  "ui (42e) - a session ended elsewhere shows signed out on the next call or focus, with no timed poll, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`ended-elsewhere-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await page.clock.install();
          await f.signInAndWait(page, email);
          const asked: string[] = [];
          // The server's API only: Chromium may fetch the favicon late, which is no poll.
          page.on("request", (r) => {
            const path = new URL(r.url()).pathname;
            if (path.startsWith("/api/")) asked.push(path);
          });
          // Left alone, the page asks the API nothing (a poll would keep an idle session alive).
          await page.clock.runFor(61_000);
          expect(asked).toEqual([]);
          const elsewhere = await f.signedInElsewhere(email);
          await f.call(elsewhere, "DELETE", "/sessions");
          await elsewhere.dispose();
          // English: the window gets the focus back. German: the next call (the activity page).
          if (lang === "en") await focusWindow(page);
          else await page.click('nav a[href="/activity"]');
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          expect(await visible(page, 'nav a[href="/account"]')).toBe(false);
          await expectStatus(
            page,
            lang,
            "You were signed out (this session was ended elsewhere). Please sign in again.",
            "Du wurdest abgemeldet (diese Sitzung wurde anderswo beendet). Bitte melde dich erneut an.",
          );
        })();
      }
    }),

  "ui (42l) - a tab left idle past SESSION_IDLE_SECONDS is signed out; a tab in use is not, in English and German":
    withTimeout(90_000, async (f) => {
      // Another app of the example with a 10 s idle timeout (so 10 s access tokens, refreshed by a
      // busy tab in their last 2.5 s: with 6 s, only 1.5 s, which a loaded machine's refresh
      // overran, and the server rightly ended the idle-looking session). The example's
      // server reads the real clock, so the test waits in real time: two idle timeouts.
      const other = await f.openOther({ SESSION_IDLE_SECONDS: String(IDLE_SECONDS) });
      const tabs: { page: Page; close(): Promise<void>; lang: string; busy: boolean; email: string }[] = [];
      try {
        for (const [locale, lang] of LOCALES)
          for (const busy of [false, true]) {
            const email = await f.createAccount(`idle-${lang}-${busy}`, {}, other.example);
            const [context, page] = await f.newPage({ locale });
            tabs.push({ page, close: () => context.close(), lang, busy, email });
            await page.goto(`${other.base}/login`);
            await page.fill("#login [name=email]", email);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await signedInAs(page, email);
          }
        // The busy tabs' users press a key a few times a second, also while the tabs are checked
        // (a busy user who stopped while the others were checked would rightly be signed out once
        // the server's idle clock, started by the last refresh, ran out); the idle tabs are left alone.
        let checked = false;
        const pressing = (async () => {
          while (!checked)
            for (const tab of tabs) if (tab.busy) await tab.page.keyboard.press("Shift", { delay: 100 });
        })();
        await new Promise((resolve) => setTimeout(resolve, 2 * IDLE_SECONDS * 1000));
        try {
          await checkTabs();
        } finally {
          checked = true;
          await pressing;
        }
      } finally {
        for (const tab of tabs) await tab.close();
        await other.close();
      }

      async function checkTabs(): Promise<void> {
        for (const { page, lang, busy, email } of tabs) {
          const me = () => page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.status));
          if (busy) {
            await signedInAs(page, email);
            // Its 10 s access token may have lapsed a moment ago: the next key press refreshes it
            // (the session is alive), so /me answers again.
            await expect.poll(me).toBe(200);
            continue;
          }
          await focusWindow(page);
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          await expectStatus(
            page,
            lang,
            "You were signed out: your session ran out (after a time without activity). Please sign in again.",
            "Du wurdest abgemeldet: deine Sitzung ist abgelaufen (nach einer Zeit ohne Aktivität). Bitte melde dich erneut an.",
          );
          expect(await me()).toBe(401);
          await f.shot(page, `42l-idle-signed-out-${lang}`);
        }
      }
    }),
};
