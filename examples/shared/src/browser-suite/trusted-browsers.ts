import { referenceTotp } from "@portcullis/testing";
import { expect } from "vitest";
import {
  type BrowserTests,
  expectStatus,
  LOCALES,
  signedInAs,
  submitTwoFactorCode,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 49: "trust this browser" on the second step, and the list with "Forget" ----------------
const WORDS = {
  trust: {
    en: "Trust this browser: no code here next time",
    de: "Diesem Browser vertrauen: hier beim nächsten Mal ohne Code",
  },
  thisDevice: { en: "This device", de: "Dieses Gerät" },
  forgotten: {
    en: "Browser forgotten: it asks for the second step again.",
    de: "Browser vergessen: er fragt wieder nach dem zweiten Schritt.",
  },
};

/** The browser tests of this area, by name. */
export const trustedBrowsersTests: BrowserTests = {
  "ui (49) - trust this browser: sign out, sign in without the code; forget it and the code is asked again":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`trusted-${lang}`);
        const secret = await f.enableTwoFactor(email, { totp: true });
        const [context, page] = await f.newPage({ locale });
        try {
          await f.signIn(page, email);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
          const label = page.locator("#two-factor-code label.check span");
          expect(await label.textContent()).toBe(WORDS.trust[lang]);
          await page.check("#two-factor-trust");
          await submitTwoFactorCode(page, referenceTotp(secret, Date.now()));
          await signedInAs(page, email);
          await page.click("#logout");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          // Signed out, the same browser: the password alone signs in.
          await f.signIn(page, email);
          await signedInAs(page, email);
          expect(await visible(page, "#two-factor")).toBe(false);
          await page.click('nav a[href="/settings/security"]');
          const items = page.locator("#trusted-browsers li");
          await expect.poll(() => items.count()).toBe(1);
          expect(await items.first().textContent()).toContain(WORDS.thisDevice[lang]);
          await f.shot(page, `49-trusted-browsers-${lang}`);
          await items.first().locator("button").click();
          await expectStatus(page, lang, WORDS.forgotten.en, WORDS.forgotten.de);
          await page.click("#logout");
          await expect.poll(() => visible(page, "#signed-out")).toBe(true);
          await f.signIn(page, email);
          await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        } finally {
          await context.close();
        }
      }
    }),
};
