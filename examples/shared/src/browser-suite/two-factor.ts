import { referenceTotp } from "@portcullis/testing";
import { expect } from "vitest";
import {
  type BrowserTests,
  confirmPassword,
  expectHuman,
  inPage,
  PASSWORD,
  signedInAs,
  status,
  submitTwoFactorCode,
  visible,
} from "./fixture.js";

/** The browser tests of this area, by name. */
export const twoFactorTests: BrowserTests = {
  "ui (f) - the 2FA buttons follow the account's state": inPage(async (f, page) => {
    const email = await f.createAccount("buttons");
    await f.openSettings(page, email);
    // The settings buttons on show, and the label of the TOTP setup button.
    const state = async () => {
      const shown: string[] = [];
      for (const id of ["totp-setup", "totp-disable", "email-send", "email-disable", "preferred"]) {
        if (await visible(page, `#${id}`)) shown.push(id);
      }
      return { shown, setupLabel: await page.locator("#totp-setup").textContent() };
    };
    await expect
      .poll(state)
      .toEqual({ shown: ["totp-setup", "email-send"], setupLabel: "Set up an authenticator app" });

    await page.click("#totp-setup");
    await expect.poll(() => page.locator("#totp-secret").textContent()).toMatch(/^[A-Z2-7]{32,}$/);
    const secret = (await page.locator("#totp-secret").textContent()) ?? "";
    await page.fill("#totp-confirm [name=code]", referenceTotp(secret, Date.now()));
    await page.click("#totp-confirm button[type=submit]");
    await expect.poll(() => visible(page, "#totp-disable")).toBe(true);
    // On: no "set up" offer any more, only a new setup or turning it off.
    await expect.poll(state).toEqual({
      shown: ["totp-setup", "totp-disable", "email-send"],
      setupLabel: "Set up again (new secret and codes)",
    });

    const before = f.newestId();
    await page.click("#email-send");
    await expect.poll(() => visible(page, "#email-enable")).toBe(true);
    await page.fill("#email-enable [name=code]", await f.emailedCode(email, before));
    await page.click("#email-enable button[type=submit]");
    await expect.poll(() => status(page).textContent()).toBe("Codes by email turned on");
    await expect.poll(state).toEqual({
      shown: ["totp-setup", "totp-disable", "email-disable", "preferred"],
      setupLabel: "Set up again (new secret and codes)",
    });
    expect(await visible(page, "#email-enable")).toBe(false);
    await f.shot(page, "f-security-both-on");

    await page.click("#totp-disable");
    await expect.poll(() => status(page).textContent()).toBe("Authenticator app turned off");
    await expect
      .poll(state)
      .toEqual({ shown: ["totp-setup", "email-disable"], setupLabel: "Set up an authenticator app" });
  }),

  "ui (f) - the sign-in's second step offers only the account's methods": inPage(async (f, page) => {
    const totpOnly = await f.createAccount("totp-only");
    const emailOnly = await f.createAccount("email-only");
    await f.enableTwoFactor(totpOnly, { totp: true });
    await f.enableTwoFactor(emailOnly, { email: true });

    await f.signIn(page, totpOnly);
    await expect.poll(() => visible(page, "#two-factor")).toBe(true);
    expect(await visible(page, "#two-factor-email")).toBe(false);
    expect(await visible(page, "#two-factor-methods")).toBe(false);
    expect(await page.locator("#two-factor-hint").textContent()).toContain("authenticator app");
    await f.shot(page, "f-two-factor-totp-only");

    const before = f.newestId();
    await page.reload();
    await f.signIn(page, emailOnly);
    await expect.poll(() => visible(page, "#two-factor")).toBe(true);
    expect(await visible(page, "#two-factor-methods")).toBe(false);
    // Email is its only (so preferred) method: the sign-in mailed a code already.
    expect(await page.locator("#two-factor-hint").textContent()).toContain("We emailed you a code");
    expect(await visible(page, "#two-factor-email")).toBe(true);
    await f.finishWithEmailedCode(page, emailOnly, before);
  }),

  "ui (f) - an emailed code works with the method left at the preferred one": inPage(async (f, page) => {
    const email = await f.createAccount("preferred");
    await f.enableTwoFactor(email, { totp: true, email: true, preferred: "totp" });
    await f.signIn(page, email);
    await expect.poll(() => visible(page, "#two-factor")).toBe(true);
    const checked = () => page.locator("#two-factor-methods input:checked").getAttribute("value");
    expect(await checked()).toBe("totp");
    expect(await visible(page, "#two-factor-email")).toBe(true);
    const before = f.newestId();
    await page.click("#two-factor-email");
    await expect.poll(() => status(page).textContent()).toBe("A code is on its way to your inbox");
    await f.shot(page, "f-two-factor-email");
    // The method choice is not touched: the code is sent as the emailed one all the same.
    await f.finishWithEmailedCode(page, email, before);
  }),

  "ui (f) - signing out hides the settings; signing in again without a reload shows that account's": inPage(
    async (f, page) => {
      const first = await f.createAccount("first");
      const second = await f.createAccount("second");
      const secret = await f.enableTwoFactor(second, { totp: true });
      await f.openSettings(page, first);
      expect(await visible(page, "#totp-disable")).toBe(false);

      await page.click("#logout");
      await expect.poll(() => visible(page, "#signed-out")).toBe(true);
      for (const hidden of ["#settings", "#security", "#signed-in", "#logout", 'nav a[href="/account"]'])
        expect({ hidden, visible: await visible(page, hidden) }).toEqual({ hidden, visible: false });
      expect(await page.locator("#me").textContent()).toBe("");
      expect(await page.locator("#security-state").textContent()).toBe("");

      // The other account, on the same page: the second step, then its own (locked) settings.
      await page.fill("#login [name=email]", second);
      await page.fill("#login [name=password]", PASSWORD);
      await page.click("#login button[type=submit]");
      await expect.poll(() => visible(page, "#two-factor")).toBe(true);
      await submitTwoFactorCode(page, referenceTotp(secret, Date.now()));
      await signedInAs(page, second);
      await page.click('nav a[href="/settings/security"]');
      await expect.poll(() => visible(page, "#security")).toBe(true);
      expect(await visible(page, "#settings")).toBe(false);
      expect(await visible(page, "#step-up")).toBe(true);
      expect(await page.locator("#security-state").textContent()).toContain("Authenticator app");
      await confirmPassword(page);
      await expect.poll(() => visible(page, "#step-up-code")).toBe(true);
      await page.fill("#step-up-code [name=code]", referenceTotp(secret, Date.now() + 30_000));
      await page.click("#step-up-code button[type=submit]");
      await expect.poll(() => visible(page, "#settings")).toBe(true);
      expect(await visible(page, "#totp-disable")).toBe(true);
      expect(await page.locator("#totp-setup").textContent()).toBe("Set up again (new secret and codes)");
      await f.shot(page, "f-security-second-account");
    },
  ),

  "ui (f) - a TOTP code used again within its 30-second step is explained": inPage(async (f, page) => {
    const email = await f.createAccount("reused");
    const secret = await f.enableTwoFactor(email, { totp: true });
    const code = referenceTotp(secret, Date.now());
    for (const attempt of [1, 2]) {
      await f.signIn(page, email);
      await expect.poll(() => visible(page, "#two-factor")).toBe(true);
      await submitTwoFactorCode(page, code);
      if (attempt === 2) break;
      await signedInAs(page, email);
      await page.click("#logout");
      await expect.poll(() => visible(page, "#signed-out")).toBe(true);
    }
    await expect.poll(() => status(page).textContent()).toContain("Each code works once");
    expectHuman(await status(page).textContent());
    expect(await visible(page, "#two-factor")).toBe(true);
    await f.shot(page, "f-reused-code");
  }),
};
