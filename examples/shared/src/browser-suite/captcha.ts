import { GOOD_CAPTCHA_TOKEN, startFakeSiteverifyServer } from "@portcullis/testing";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { type BrowserTests, LOCALES, PASSWORD, withTimeout } from "./fixture.js";

// ---- Issue 49: the CAPTCHA widget of the example UI -----------------------------------------
/**
 * A stand-in for the provider's script (no provider is reachable from a test): what
 * `turnstile.render` does in a page, reduced to one "I am human" button whose click hands
 * `GOOD_CAPTCHA_TOKEN` to the widget's callback; it calls the page's `onload` as the real one does.
 */
const STAND_IN = `(() => {
  const onload = new URL(document.currentScript.src).searchParams.get("onload");
  let next = 0;
  window.turnstile = {
    render(box, options) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "stand-in-captcha";
      button.textContent = "I am human";
      button.onclick = () => options.callback(${JSON.stringify(GOOD_CAPTCHA_TOKEN)});
      box.append(button);
      return ++next;
    },
    reset() {},
  };
  window[onload]();
})();`;

/** The page with the provider's script and the UI's config answered by the stand-ins. */
async function withStandInProvider(page: Page): Promise<void> {
  await page.route("**/ui/config", (route) =>
    route.fulfill({ json: { captcha: { provider: "turnstile", siteKey: "browser-test-site-key" } } }),
  );
  await page.route("https://challenges.cloudflare.com/**", (route) =>
    route.fulfill({ contentType: "text/javascript", body: STAND_IN }),
  );
}

/** The browser tests of this area, by name. */
export const captchaTests: BrowserTests = {
  "ui (49c) - the CAPTCHA widget in the sign-up form: without its token the server refuses; with it the provider is asked and the account is made, in English and German":
    withTimeout(60_000, async (f) => {
      const secret = "browser-test-captcha-secret";
      const siteverify = await startFakeSiteverifyServer(secret);
      const other = await f.openOther({
        CAPTCHA_PROVIDER: "turnstile",
        CAPTCHA_SECRET: secret,
        CAPTCHA_SITE_KEY: "browser-test-site-key",
        CAPTCHA_VERIFY_URL: siteverify.verifyUrl,
      });
      try {
        for (const [locale, lang] of LOCALES) {
          const [context, page] = await f.newPage({ locale });
          try {
            await withStandInProvider(page);
            await page.goto(`${other.base}/signup`);
            const human = page.locator("#signup .captcha-widget button.stand-in-captcha");
            await expect.poll(() => human.count()).toBe(1);
            const email = `captcha-${lang}@example.test`;
            await page.fill("#signup [name=email]", email);
            await page.fill("#signup [name=password]", PASSWORD);
            const refused = page.waitForResponse((r) => r.url().endsWith("/api/auth/register"));
            await page.click("#signup button[type=submit]");
            expect((await refused).headers()["auth-error-code"]).toBe("CAPTCHA_REQUIRED");
            await human.click();
            const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/register"));
            await page.click("#signup button[type=submit]");
            expect((await answered).status()).toBe(200);
            expect(siteverify.requests.at(-1)).toMatchObject({ secret, response: GOOD_CAPTCHA_TOKEN });
            expect(await other.example.stores.users.findByEmail(email)).not.toBeNull();
          } finally {
            await context.close();
          }
        }
      } finally {
        await other.close();
        await siteverify.stop();
      }
    }),
};
