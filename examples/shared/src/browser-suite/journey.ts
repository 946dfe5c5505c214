import { referenceTotp } from "@portcullis/testing";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  inPage,
  PASSWORD,
  signedInAs,
  status,
  submitTwoFactorCode,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- The whole journey --------------------------------------------------------------------
/** Signs up on the page, opens the verification link from the outbox, and opens it again. */
const signUpAndVerify = async (f: BrowserFixture, page: Page, email: string) => {
  await page.goto(`${f.base}/signup`);
  await f.shot(page, "signup");
  await page.fill("#signup [name=email]", email);
  await page.fill("#signup [name=password]", PASSWORD);
  await page.click("#signup button[type=submit]");
  await expect.poll(() => status(page).textContent()).toContain("Account created");

  const verifyLink = await f.linkFromOutbox(page, "email-verification", email);
  await f.shot(page, "outbox-entry");
  await page.goto(`${f.base}/dev/outbox`);
  await f.shot(page, "outbox");
  await page.goto(verifyLink);
  await expect
    .poll(() => page.locator("#verify-result").textContent())
    .toBe("Your email address is verified.");
  await f.shot(page, "verify");
  // The link again: a 304 EMAIL_ALREADY_VERIFIED, shown as done, not as an error.
  await page.goto(verifyLink);
  await expect.poll(() => page.locator("#verify-result").textContent()).toContain("already verified");
  expect(await page.locator("#verify-result").getAttribute("class")).toBe("ok");
};
/** From the signed-in account page: confirms the password, sets TOTP up with the page's secret. */
const turnOnTotpInSettings = async (f: BrowserFixture, page: Page) => {
  await page.click('nav a[href="/settings/security"]');
  await expect.poll(() => visible(page, "#step-up")).toBe(true);
  await f.shot(page, "security-step-up");
  await confirmPassword(page);
  await expect.poll(() => visible(page, "#settings")).toBe(true);
  await page.click("#totp-setup");
  // The secret as the page shows it beside the QR code, which encodes the otpauth URI with it.
  await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
  const secret = (await page.locator("#totp-secret").textContent()) ?? "";
  expect(await page.locator("#totp-uri").textContent()).toContain(`secret=${secret}`);
  const recoveryCodes = await page.locator("#recovery-codes li").allTextContents();
  expect(recoveryCodes.length).toBeGreaterThanOrEqual(8);
  await f.shot(page, "security-totp-setup");
  await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
  await page.click("#totp-confirm button[type=submit]");
  await expect.poll(() => visible(page, "#totp-disable")).toBe(true);
  await f.shot(page, "security-totp-on");
  return { secret, recoveryCodes };
};
/** Resets the password from another browser, then signs in with the new one up to the second step. */
const resetPasswordElsewhere = async (f: BrowserFixture, email: string, newPassword: string) => {
  const other = await f.browser.newContext({ locale: "en-US" });
  const page = await other.newPage();
  await page.goto(`${f.base}/forgot-password`);
  await f.shot(page, "forgot-password");
  await page.fill("#forgot-password [name=email]", email);
  await page.click("#forgot-password button[type=submit]");
  await expect.poll(() => status(page).textContent()).toContain("reset link");
  await page.goto(await f.linkFromOutbox(page, "password-reset", email));
  await f.shot(page, "reset-password");
  await page.fill("#reset-password [name=newPassword]", newPassword);
  await page.click("#reset-password button[type=submit]");
  await expect.poll(() => status(page).textContent()).toContain("Password changed");
  await f.signIn(page, email, newPassword);
  await expect.poll(() => visible(page, "#two-factor")).toBe(true);
  await other.close();
};

/** The browser tests of this area, by name. */
export const journeyTests: BrowserTests = {
  "ui - sign up, verify from the outbox, TOTP from the page's secret, sign out, TOTP sign-in, recovery code, reset password ends the old session":
    withTimeout(
      60_000,
      inPage(async (f, page, context) => {
        const email = "ada@example.test";
        await signUpAndVerify(f, page, email);

        await f.signInAndWait(page, email);
        expect(await page.locator("#me").textContent()).toContain("Email verified");
        expect(await page.locator("#sessions li").count()).toBe(1);
        await f.shot(page, "account");
        const { secret, recoveryCodes } = await turnOnTotpInSettings(f, page);

        await page.click("#logout");
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);

        await f.signIn(page, email);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await f.shot(page, "two-factor");
        await submitTwoFactorCode(page, referenceTotp(secret, Date.now() + 30_000));
        await signedInAs(page, email);
        const cookies = await context.cookies();
        expect(cookies.find((cookie) => cookie.name === "access_token")).toMatchObject({
          httpOnly: true,
          sameSite: "Strict",
        });

        await page.click("#logout");
        await f.signIn(page, email);
        await expect.poll(() => visible(page, "#two-factor")).toBe(true);
        await page.fill("#two-factor-recover [name=code]", recoveryCodes[0] ?? "");
        await page.click("#two-factor-recover button[type=submit]");
        await signedInAs(page, email);
        await expect.poll(() => status(page).textContent()).toContain("recovery code");

        // A password reset from another browser ends this session.
        await resetPasswordElsewhere(f, email, "a brand new passphrase");
        await page.reload();
        await expect.poll(() => visible(page, "#signed-out")).toBe(true);
        expect(await visible(page, "#signed-in")).toBe(false);
      }),
    ),
};
