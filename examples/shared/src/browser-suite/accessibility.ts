import { expect } from "vitest";
import { accessibilityFindings, type BrowserTests, visible, withTimeout } from "./fixture.js";

/** The browser tests of this area, by name. */
export const accessibilityTests: BrowserTests = {
  "ui (27j) - axe-core finds no serious or critical violations on any view at 375 and 1280 px": withTimeout(
    60_000,
    async (f) => {
      const email = await f.createAccount("axe");
      const withApp = await f.createAccount("axe-totp");
      await f.enableTwoFactor(withApp, { totp: true });
      const [context, page] = await f.newPage();
      const found: string[] = [];
      const check = async (view: string) => {
        found.push(...(await accessibilityFindings(page, view)));
      };
      try {
        await page.goto(`${f.base}/login`);
        await check("sign-in");
        await page.click("#login button[type=submit]");
        await check("sign-in with field errors");
        await page.goto(`${f.base}/signup`);
        await check("sign-up");
        await f.signIn(page, withApp);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await check("second step");
        await page.click("#two-factor-back");
        await f.signInAndWait(page, email);
        await check("signed in");
        await page.click('nav a[href="/activity"]');
        await expect.poll(() => page.locator("#activity-list li").count()).toBeGreaterThan(0);
        await check("activity");
        await page.click('nav a[href="/settings/security"]');
        await check("security");
        await page.goto(`${f.base}/settings/account`);
        await expect.poll(() => visible(page, "#account-settings")).toBe(true);
        await check("account settings");
        await page.goto(`${f.base}/confirm-email-change?token=x`);
        await check("email change confirmation");
        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        await check("signed out");
      } finally {
        await context.close();
      }
      expect(found).toEqual([]);
    },
  ),
};
