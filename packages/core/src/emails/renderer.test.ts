import mjml2html from "mjml";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTranslator } from "../i18n/index.js";
import { EMAIL_KINDS } from "../options/email-kinds.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";
import { createBackgroundTasks } from "../support/background.js";
import { BRAND, LINKS } from "../test-support.js";
import { createEmailService } from "./email-service.js";
import { brandedTemplate, createEmailRenderer } from "./renderer.js";
import { type Brand, defaultTemplate } from "./templates.js";

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

describe("templates compiled at build time", () => {
  afterEach(() => {
    vi.doUnmock("mjml");
    vi.resetModules();
  });

  const brands: Brand[] = [
    BRAND,
    {
      name: `A & B "Co" <x> 'q' {{heading}} #a1b`,
      primaryColor: "#AbC",
      textColor: "#000",
      backgroundColor: "#FFFFFF",
      logoUrl: 'https://cdn.test/logo.png?a=1&b="2"',
    },
    { ...BRAND, primaryColor: "#c3d", textColor: "#a1b", logoUrl: "https://x.test/l.svg" },
  ];

  it("compiled-templates.ts - equals a fresh MJML compile of defaultTemplate for every kind and brand", async () => {
    for (const brand of brands) {
      for (const kind of EMAIL_KINDS) {
        const fresh = await mjml2html(defaultTemplate(kind, brand), {
          validationLevel: "strict",
          keepComments: false,
          fonts: {},
        });
        // Out of date: `node packages/core/scripts/compile-templates.mjs` (the build runs it).
        expect(brandedTemplate(kind, brand), `${kind} with ${brand.name}`).toBe(fresh.html);
      }
    }
  });

  it("compile - without overrides needs no mjml and takes no MJML time", async () => {
    vi.doMock("mjml", () => {
      throw new Error("Cannot find package 'mjml'");
    });
    const { createEmailRenderer: fresh } = await import("./renderer.js");
    const started = performance.now();
    const renderer = fresh({ brand: BRAND, translator: createTranslator("en") });
    await renderer.compile();
    expect(performance.now() - started).toBeLessThan(100);
    const email = await renderer.render("password-reset", "de", {
      email: "a@x.test",
      link: "https://a.test",
      minutes: 30,
    });
    expect(email.html).toContain('href="https://a.test"');
    expect(email.html).not.toMatch(/\{\{\w+\}\}|PORTCULLIS_SENTINEL|#aa11bb/);
  });

  it("compile - overrides without mjml installed fail with a message naming email.templates", async () => {
    vi.doMock("mjml", () => {
      throw new Error("Cannot find package 'mjml'");
    });
    const { createEmailRenderer: fresh } = await import("./renderer.js");
    const renderer = fresh({
      brand: BRAND,
      translator: createTranslator("en"),
      templates: { "password-changed": defaultTemplate("password-changed", BRAND) },
    });
    const error = await renderer.compile().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toMatchObject({ code: "EMAIL_TEMPLATE_FAILURE" });
    expect(String((error?.cause as Error | undefined)?.message)).toMatch(
      /email\.templates needs the "mjml" package/,
    );
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
