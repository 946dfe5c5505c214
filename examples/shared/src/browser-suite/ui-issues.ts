import { readFile } from "node:fs/promises";
import { referenceTotp } from "@portcullis/testing";
import type { Locator } from "playwright-core";
import { expect } from "vitest";
import {
  type Box,
  type BrowserTests,
  DAY,
  expectHuman,
  inPage,
  PASSWORD,
  status,
  visible,
  withTimeout,
} from "./fixture.js";

/** The browser tests of this area, by name. */
export const uiIssuesTests: BrowserTests = {
  // ---- One test per UI issue ----------------------------------------------------------------
  "ui (a) - /dev/outbox is a clickable list in a browser, and JSON for Accept: application/json": inPage(
    async (f, page) => {
      const email = await f.createAccount("outbox");
      await page.goto(`${f.base}/forgot-password`);
      await page.fill("#forgot-password [name=email]", email);
      await page.click("#forgot-password button[type=submit]");
      const sent = await f.newestEmail("password-reset", email);

      // From the app's footer link: a page of links, not JSON.
      const list = page.waitForResponse(`${f.base}/dev/outbox`);
      await page.click("#outbox-link");
      expect((await list).headers()["content-type"]).toMatch(/^text\/html/);
      expect(await page.locator("h1").textContent()).toBe("Dev outbox");
      const entry = page.locator("li", { hasText: email });
      expect(await entry.textContent()).toContain("password-reset");
      await f.shot(page, "a-outbox-list");
      await entry.locator("a").click();
      await expect.poll(() => new URL(page.url()).pathname).toBe(`/dev/outbox/${sent.id}`);
      expect(await page.locator("header").textContent()).toContain(sent.subject);
      expect(
        await page.frameLocator("iframe").locator('a[href*="/reset-password?token="]').count(),
      ).toBeGreaterThan(0);
      await f.shot(page, "a-outbox-entry");
      await page.click('a[href="/dev/outbox"]');
      await expect.poll(() => new URL(page.url()).pathname).toBe("/dev/outbox");

      // The same URL for a script: JSON.
      const json = await page.request.get(`${f.base}/dev/outbox`, {
        headers: { accept: "application/json" },
      });
      expect(json.headers()["content-type"]).toMatch(/^application\/json/);
      const { emails } = (await json.json()) as { emails: { id: string; to: string; url: string }[] };
      expect(emails.find((e) => e.id === sent.id)).toMatchObject({
        to: email,
        url: `/dev/outbox/${sent.id}`,
      });
    },
  ),

  "ui (b) - the email's “Review security settings” link opens the security page, signed in, on the printed origin":
    inPage(async (f, page, context) => {
      // The origin the server prints (no APP_ORIGIN set) is the one the emails link to: on a
      // loopback HOST, localhost (WebAuthn refuses IP addresses).
      expect(f.base).toMatch(/^http:\/\/localhost:\d+$/);
      const email = await f.createAccount("alert", { lastSignInAt: Date.now() - DAY });
      await f.signInAndWait(page, email);
      // A sign-in from a browser the account does not know (a new context) mails a login alert.
      const alert = await f.newestEmail("login-alert", email);
      await page.goto(`${f.base}/dev/outbox/${alert.id}`);
      // Its "Review security settings" button (the first link to the page; the plain URL follows).
      const button = page.frameLocator("iframe").locator(`a[href="${f.base}/settings/security"]`).first();
      expect(new URL((await button.getAttribute("href")) ?? "").origin).toBe(f.base);
      // The email's link opens a new tab (target=_blank, out of the outbox's sandboxed frame).
      const [tab] = await Promise.all([context.waitForEvent("page"), button.click()]);
      await tab.waitForLoadState();
      expect(new URL(tab.url()).pathname).toBe("/settings/security");
      await expect.poll(() => visible(tab, "#security")).toBe(true);
      expect(await visible(tab, "#signed-out")).toBe(false);
      expect(await visible(tab, "#signed-in")).toBe(false);
      expect(await visible(tab, "#step-up")).toBe(true);
      expect(await tab.locator("#security-state").textContent()).toContain("Two-factor");
      expect(await visible(tab, "#logout")).toBe(true);
      expect(await status(tab).isVisible()).toBe(false);
      await f.shot(tab, "b-security-from-email");
    }),

  "ui (c) - errors read as human messages; resending verification to a verified address says so": withTimeout(
    60_000,
    inPage(async (f, page) => {
      const email = await f.createAccount("errors", { verified: false });

      await f.signIn(page, email, "not the password at all");
      await expect.poll(() => status(page).isVisible()).toBe(true);
      expect(await status(page).textContent()).toBe("The email address or password is wrong.");
      expect(await status(page).getAttribute("class")).toBe("error");
      // A code the page has no words for reads as the API's localized message.
      await page.goto(`${f.base}/reset-password?token=not-a-token`);
      await page.fill("#reset-password [name=newPassword]", "a brand new passphrase");
      await page.click("#reset-password button[type=submit]");
      await expect.poll(() => status(page).isVisible()).toBe(true);
      expectHuman(await status(page).textContent());
      await page.goto(`${f.base}/verify-email?token=not-a-token`);
      await expect.poll(() => page.locator("#verify-result").getAttribute("class")).toBe("error");
      expectHuman(await page.locator("#verify-result").textContent());
      await f.shot(page, "c-error");

      // Resend, verify in another tab, then "Resend" again on the page that still offers it: 304.
      await f.signInAndWait(page, email);
      expect(await visible(page, "#resend-verification")).toBe(true);
      await page.click("#resend-verification");
      await expect.poll(() => status(page).textContent()).toBe("Verification email sent");
      // The link is used elsewhere (another device's mail client: a POST of its token, over HTTP).
      // A second tab of this browser did it before; in loaded CI runs that tab sometimes stayed at
      // "Checking your link…" for 40 s (3 times in 2 runs; the cause is not found yet). The
      // verification page itself is covered by the journey test.
      const link = /https?:\/\/\S*verify-email\?token=([\w-]+)/.exec(
        (await f.newestEmail("email-verification", email)).text,
      );
      const verified = await fetch(`${f.base}/api/auth/email/verification?token=${link?.[1]}`, {
        method: "POST",
        headers: { origin: f.base },
      });
      expect(verified.status, await verified.text()).toBe(200);
      await page.click("#resend-verification");
      await expect.poll(() => status(page).textContent()).toContain("already verified");
      expectHuman(await status(page).textContent());
      expect(await status(page).getAttribute("class")).toBe("ok");
      await expect.poll(() => visible(page, "#resend-verification")).toBe(false);
      expect(await page.locator("#me").textContent()).toContain("Email verifiedYes");
      await f.shot(page, "c-already-verified");
    }),
  ),

  "ui (d) - a field error the API returns is shown under its field, in German too": inPage(
    { locale: "de-DE" },
    async (f, page) => {
      await page.goto(`${f.base}/signup`);
      // The page's words are applied by its script after the load: wait for the German ones.
      await expect.poll(() => page.locator("#signup h1").textContent()).toBe("Konto erstellen");
      await page.fill("#signup [name=email]", "not-an-address");
      await page.fill("#signup [name=password]", PASSWORD);
      await page.click("#signup button[type=submit]");
      const fieldError = page.locator("#signup label:has([name=email]) .field-error");
      await expect.poll(() => fieldError.count()).toBe(1);
      expectHuman(await fieldError.textContent());
      expect(await page.locator("#signup [name=email]").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#signup label:has([name=password]) .field-error").count()).toBe(0);
      expectHuman(await status(page).textContent());
      await f.shot(page, "d-signup-field-error-de");
      await page.selectOption("#language", "en");
      expect(await page.locator("#signup h1").textContent()).toBe("Create an account");
    },
  ),

  "ui (e) - TOTP setup: a QR code, an otpauth URI that fits its card at 375 px, recovery codes to copy and download":
    inPage({ viewport: { width: 375, height: 800 } }, async (f, page, context) => {
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.base });
      const email = await f.createAccount("totp-setup");
      await f.openSettings(page, email);
      await page.click("#totp-setup");
      await expect.poll(() => visible(page, "#totp-confirm")).toBe(true);

      const qr = page.locator("#totp-qr");
      await expect
        .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      expect(await qr.isVisible()).toBe(true);
      // The image is the QR code of the URI the page shows.
      const uri = (await page.locator("#totp-uri").textContent()) ?? "";
      expect(uri).toMatch(/^otpauth:\/\/totp\//);
      const drawn = await qr.evaluate(async (img) =>
        (await fetch((img as unknown as { src: string }).src)).text(),
      );
      const expected = await page.request.post(`${f.base}/ui/qr`, { data: { text: uri } });
      expect(drawn).toBe(await expected.text());

      // Nothing runs out of its card, the URI opened or not.
      await page.click("#totp-confirm summary");
      const fits = (locator: Locator) =>
        locator.evaluate((node) => {
          const box = node as unknown as Box & { closest(selector: string): Box };
          const card = box.closest(".card");
          const inner = box.getBoundingClientRect();
          const outer = card.getBoundingClientRect();
          return {
            scroll: box.scrollWidth <= box.clientWidth,
            cardScroll: card.scrollWidth <= card.clientWidth,
            inside: inner.left >= outer.left && inner.right <= outer.right,
          };
        });
      for (const selector of ["#totp-confirm details", "#totp-uri", "#totp-secret", "#recovery-codes"])
        expect({ selector, ...(await fits(page.locator(selector))) }).toEqual({
          selector,
          scroll: true,
          cardScroll: true,
          inside: true,
        });
      expect(
        await page.locator("html").evaluate((html) => (html as unknown as Box).scrollWidth),
      ).toBeLessThanOrEqual(375);
      await f.shot(page, "e-totp-setup");

      // Recovery codes: a list; Copy puts them on the clipboard, Download saves them as a file.
      expect(
        await page
          .locator("#recovery-codes")
          .evaluate((node) => (node as unknown as { tagName: string }).tagName),
      ).toMatch(/^[OU]L$/);
      const codes = await page.locator("#recovery-codes li").allTextContents();
      expect(codes.length).toBeGreaterThanOrEqual(8);
      expect(new Set(codes).size).toBe(codes.length);
      await page.click("#recovery-copy");
      await expect.poll(() => status(page).textContent()).toBe("Recovery codes copied");
      const clipboard = () =>
        (
          globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
        ).navigator.clipboard.readText();
      expect(await page.evaluate(clipboard)).toBe(codes.join("\n"));
      const download = page.waitForEvent("download");
      await page.click("#recovery-download");
      expect((await download).suggestedFilename()).toMatch(/^recovery-codes-.+\.txt$/);
      expect(await readFile(await (await download).path(), "utf8")).toBe(`${codes.join("\n")}\n`);

      const secret = (await page.locator("#totp-secret").textContent()) ?? "";
      await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
      await page.click("#totp-confirm button[type=submit]");
      await expect.poll(() => status(page).textContent()).toBe("Authenticator app turned on");
      await expect.poll(() => visible(page, "#totp-confirm")).toBe(false);
    }),
};
