import { expect } from "vitest";
import { type BrowserTests, inPage, visible } from "./fixture.js";

/** The browser tests of this area, by name. */
export const emailSignInTests: BrowserTests = {
  "email sign-in (30) - opening the emailed link signs nobody in; the page's button signs in with a POST":
    inPage(async (f, page) => {
      const email = await f.createAccount("email-sign-in", { verified: true });
      const requested = await page.request.post(`${f.base}/api/auth/email-sign-in/request`, {
        data: { email },
      });
      expect(requested.status()).toBe(200);
      const mail = f.outbox.list().find((entry) => entry.kind === "email-sign-in" && entry.to === email);
      const href = /href="([^"]+\?token=[^"]+)"/.exec(mail?.html ?? "")?.[1]?.replace(/&amp;/g, "&") ?? "";
      expect(href.startsWith(`${f.base}/sign-in/email?token=`)).toBe(true);
      const me = () => page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.status));
      // What a mail scanner does: open the link and run its page. Nobody is signed in.
      await page.goto(href);
      await expect.poll(() => visible(page, "#email-sign-in button")).toBe(true);
      expect(await me()).toBe(401);
      await page.click("#email-sign-in button");
      await page.waitForURL(`${f.base}/`);
      expect(await me()).toBe(200);
      // The link is spent: opening it again and pressing the button says so.
      await page.goto(href);
      await page.click("#email-sign-in button");
      await expect
        .poll(() => page.locator("#status").textContent())
        .toMatch(/not valid|already used|expired/);
    }),
};
