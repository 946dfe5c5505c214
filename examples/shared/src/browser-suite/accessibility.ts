import { createRequire } from "node:module";
import { expect } from "vitest";
import { type BrowserTests, signedInAs, visible, withTimeout } from "./fixture.js";

/** The browser tests of this area, by name. */
export const accessibilityTests: BrowserTests = {
  "ui (27j) - axe-core finds no serious or critical violations on any view at 375 and 1280 px": withTimeout(
    60_000,
    async (f) => {
      const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
      const email = await f.createAccount("axe");
      const withApp = await f.createAccount("axe-totp");
      await f.enableTwoFactor(withApp, { totp: true });
      const [context, page] = await f.newPage();
      const found: string[] = [];
      const check = async (view: string) => {
        for (const width of [375, 1280]) {
          await page.setViewportSize({ width, height: 900 });
          await page.addScriptTag({ path: axePath });
          const { violations, passes } = (await page.evaluate(async () => {
            const axe = (
              globalThis as unknown as {
                axe: { run(): Promise<{ violations: unknown[]; passes: unknown[] }> };
              }
            ).axe;
            const result = await axe.run();
            return { violations: result.violations, passes: result.passes.length };
          })) as {
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
            passes: number;
          };
          // The rules ran (color contrast among them), not an empty page.
          expect(passes).toBeGreaterThan(5);
          for (const v of violations)
            if (v.impact === "serious" || v.impact === "critical")
              found.push(`${view} @${width}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        }
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
        await f.signIn(page, email);
        await signedInAs(page, email);
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
