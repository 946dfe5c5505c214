import { describe, expect, it } from "vitest";
import { createBackgroundTasks } from "../background.js";
import { createTranslator } from "../i18n/index.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";
import { createEmailService } from "./email-service.js";
import { createEmailRenderer } from "./renderer.js";
import { defaultTemplate } from "./templates.js";

const BRAND = {
  name: "Acme",
  primaryColor: "#4f46e5",
  textColor: "#111827",
  backgroundColor: "#f3f4f6",
  logoUrl: null,
};
const LINKS = {
  verifyEmail: "/verify-email",
  resetPassword: "/reset-password",
  forgotPassword: "/forgot-password",
  signIn: "/login",
  signUp: "/signup",
  securitySettings: "/settings/security",
};

describe("email renderer", () => {
  it("render - values are HTML-escaped in the HTML part and left readable in the text part", async () => {
    const renderer = createEmailRenderer({ brand: BRAND, translator: createTranslator("en") });
    const email = await renderer.render("login-alert", "en", {
      email: "ada@example.test",
      name: '<script>alert("x")</script>',
      link: "https://app.test/s?a=1&b=2",
      details: { time: "now", browser: "<img src=x onerror=alert(1)>", os: null, ip: "1.2.3.4" },
    });
    expect(email.html).not.toContain("<script>alert");
    expect(email.html).not.toContain("<img src=x");
    expect(email.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(email.html).toContain('href="https://app.test/s?a=1&amp;b=2"');
    expect(email.text).toContain('Hello <script>alert("x")</script>,');
    expect(email.text).toContain("Operating system: unknown");
    expect(email.html).not.toMatch(/\{\{\w+\}\}/);
    expect(email.html).not.toContain("fonts.googleapis.com");
  });

  it("render - hosts override strings and whole templates, and add locales", async () => {
    const translator = createTranslator("en", {
      en: { emails: { "password-reset": { subject: "Custom reset for {{brand}}" } } },
      fr: { emails: { "password-reset": { subject: "Réinitialisez votre mot de passe {{brand}}" } } },
    });
    const template = defaultTemplate("password-changed", BRAND).replace("{{intro}}", "CUSTOM {{intro}}");
    const renderer = createEmailRenderer({
      brand: BRAND,
      translator,
      templates: { "password-changed": template },
    });
    expect(
      (await renderer.render("password-reset", "en", { email: "a@x.test", link: "https://a.test" })).subject,
    ).toBe("Custom reset for Acme");
    expect(
      (await renderer.render("password-reset", "fr", { email: "a@x.test", link: "https://a.test" })).subject,
    ).toBe("Réinitialisez votre mot de passe Acme");
    const fallback = await renderer.render("password-changed", "fr", {
      email: "a@x.test",
      link: "https://a.test",
    });
    expect(fallback.subject).toBe("Your Acme password was changed");
    expect(fallback.html).toContain("CUSTOM The password of your Acme account");
  });

  it("compile - a broken host template is EMAIL_TEMPLATE_FAILURE", async () => {
    const renderer = createEmailRenderer({
      brand: BRAND,
      translator: createTranslator("en"),
      templates: { "login-alert": "<mjml><mj-body><mj-nope/></mj-body></mjml>" },
    });
    await expect(renderer.render("password-reset", "en", { email: "a@x.test" })).rejects.toMatchObject({
      code: "EMAIL_TEMPLATE_FAILURE",
    });
  });
});

describe("email service", () => {
  const renderer = createEmailRenderer({ brand: BRAND, translator: createTranslator("en") });
  const background = createBackgroundTasks(silentLogger);
  const service = (mailer: { send(message: EmailMessage): Promise<void> } | undefined, enabled = true) =>
    createEmailService({
      background,
      enabled,
      mailer,
      renderer,
      appOrigin: "https://app.test/base/",
      links: LINKS,
      sendTimeoutMs: 200,
      logger: silentLogger,
    });

  it("link - only from the configured origin and path, with the token as a query parameter", () => {
    expect(service(undefined).link("resetPassword", "a b&c")).toBe(
      "https://app.test/base/reset-password?token=a+b%26c",
    );
    expect(service(undefined).link("signIn")).toBe("https://app.test/base/login");
  });

  it("send - disabled email is EMAIL_DISABLED; a throwing or hanging mailer is EMAIL_SEND_FAILURE", async () => {
    await expect(
      service({ send: async () => {} }, false).send("password-reset", "a@x.test", "en", {}),
    ).rejects.toMatchObject({
      code: "EMAIL_DISABLED",
    });
    await expect(
      service({ send: () => Promise.reject(new Error("boom")) }).send("password-reset", "a@x.test", "en", {}),
    ).rejects.toMatchObject({
      code: "EMAIL_SEND_FAILURE",
    });
    const started = Date.now();
    await expect(
      service({ send: () => new Promise(() => {}) }).send("password-reset", "a@x.test", "en", {}),
    ).rejects.toMatchObject({
      code: "EMAIL_SEND_FAILURE",
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("sendInBackground - never throws or leaves an unhandled rejection; skipped when disabled", async () => {
    const sent: EmailMessage[] = [];
    service({ send: () => Promise.reject(new Error("boom")) }).sendInBackground(
      "login-alert",
      "a@x.test",
      "en",
      {},
    );
    service({ send: async (message) => void sent.push(message) }, false).sendInBackground(
      "login-alert",
      "a@x.test",
      "en",
      {},
    );
    service({ send: async (message) => void sent.push(message) }).sendInBackground(
      "login-alert",
      "a@x.test",
      "de",
      {},
    );
    await background.idle();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "login-alert", locale: "de", to: "a@x.test" });
  });
});
