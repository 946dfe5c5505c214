import { createServer, type Server } from "node:net";
import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { createHttpHandler } from "../http/handler.js";
import { createTranslator } from "../i18n/index.js";
import { EMAIL_KINDS } from "../options/email-kinds.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailKind } from "../ports/mailer.js";
import { createBackgroundTasks } from "../support/background.js";
import { BRAND, LINKS } from "../test-support.js";
import { createEmailService } from "./email-service.js";
import { createEmailRenderer } from "./renderer.js";
import { createSmtpMailer } from "./smtp-mailer.js";
import { KIND_LAYOUT } from "./templates.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

const APP_ORIGIN = "https://app.example.test";

/** A real SMTP server on 127.0.0.1 that parses every message it receives. */
async function startSmtp(options: { password?: string } = {}) {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: options.password ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !options.password,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.password === options.password) callback(null, { user: auth.username });
      else callback(new Error("Invalid username or password"));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        received.push(mail);
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as { port: number }).port;
  return { received, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const valuesFor = (kind: EmailKind, token = "t0k3n-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG") => ({
  name: "Ada",
  link: KIND_LAYOUT[kind].button ? `${APP_ORIGIN}/reset-password?token=${token}` : undefined,
  code: "042317",
  hours: 24,
  minutes: 30,
  providers: "GitHub",
  method: "totp",
  change: "added" as const,
  details: { time: "1 January 2026", browser: "Firefox 130", os: "Linux", ip: "203.0.113.7" },
});

describe("SMTP mailer options", () => {
  afterEach(() => {
    vi.doUnmock("nodemailer");
    vi.resetModules();
  });

  it("createSmtpMailer - a missing or malformed url, from or timeoutMs throws, naming the option", () => {
    const create = (options: unknown) => () =>
      createSmtpMailer(options as Parameters<typeof createSmtpMailer>[0]);
    expect(create({ url: undefined, from: "a@acme.test" })).toThrow(/`url` is required.*got undefined/);
    expect(create({ url: "mail.acme.test", from: "a@acme.test" })).toThrow(/`url` must be an smtp:\/\//);
    expect(create({ url: "https://user:secret@acme.test", from: "a@acme.test" })).toThrow(
      /^createSmtpMailer: `url` must be an smtp:\/\/ or smtps:\/\/ URL$/,
    );
    expect(create({ url: { port: 25 }, from: "a@acme.test" })).toThrow(/needs a `host`/);
    expect(create({ url: "smtp://127.0.0.1:25" })).toThrow(/`from` is required/);
    expect(create({ url: "smtp://127.0.0.1:25", from: "a@acme.test", timeoutMs: -1 })).toThrow(/`timeoutMs`/);
    create({ url: { host: "127.0.0.1", port: 25 }, from: "a@acme.test" })().close();
  });

  it("send - without nodemailer installed is EMAIL_SEND_FAILURE whose cause names the package", async () => {
    vi.doMock("nodemailer", () => {
      throw new Error("Cannot find package 'nodemailer'");
    });
    const { createSmtpMailer: fresh } = await import("./smtp-mailer.js");
    const mailer = fresh({ url: "smtp://127.0.0.1:25", from: "a@acme.test" });
    const error = await mailer
      .send({ to: "a@x.test", subject: "s", html: "h", text: "t", kind: "login-alert", locale: "en" })
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    expect(error).toMatchObject({ code: "EMAIL_SEND_FAILURE" });
    expect(String((error?.cause as Error | undefined)?.message)).toMatch(
      /createSmtpMailer needs the "nodemailer" package/,
    );
    mailer.close();
  });
});

describe("SMTP mailer", () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(() => {
    smtp.received.length = 0;
  });

  it("send - every kind in en and de arrives with recipient, localized subject, HTML and text parts", async () => {
    const translator = createTranslator("en");
    const renderer = createEmailRenderer({ brand: BRAND, translator });
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${smtp.port}`,
      from: "Acme <no-reply@acme.test>",
    });
    const emails = createEmailService({
      background: createBackgroundTasks(silentLogger),
      enabled: true,
      mailer,
      renderer,
      appOrigin: APP_ORIGIN,
      links: LINKS,
      sendTimeoutMs: 5_000,
      logger: silentLogger,
    });
    for (const locale of ["en", "de"]) {
      for (const kind of EMAIL_KINDS) {
        await emails.send(kind, "ada@example.test", locale, valuesFor(kind));
        const mail = smtp.received.at(-1);
        const expectedSubject = translator.t(`emails.${kind}.subject`, locale, {
          brand: "Acme",
          code: "042317",
        });
        expect(mail?.subject, `${kind}/${locale}`).toBe(expectedSubject);
        expect(mail?.to && !Array.isArray(mail.to) ? mail.to.text : "").toBe("ada@example.test");
        expect(mail?.html).toContain(translator.t(`emails.${kind}.heading`, locale));
        expect(mail?.text).toContain(translator.t(`emails.${kind}.heading`, locale));
        expect(mail?.headers.get("content-language")).toBe(locale);
        if (KIND_LAYOUT[kind].button) {
          expect(mail?.html).toContain(`href="${APP_ORIGIN}/reset-password?token=`);
          expect(mail?.text).toContain(`${APP_ORIGIN}/reset-password?token=`);
        }
        if (KIND_LAYOUT[kind].code) expect(mail?.text).toContain("042317");
      }
    }
    expect(smtp.received).toHaveLength(EMAIL_KINDS.length * 2);
    const subjects = smtp.received.map((mail) => mail.subject);
    expect(new Set(subjects).size).toBe(subjects.length);
    mailer.close();
  });

  it("send - a refused SMTP login is EMAIL_AUTHENTICATION_FAILURE", async () => {
    const guarded = await startSmtp({ password: "right" });
    const mailer = createSmtpMailer({
      url: `smtp://ada:wrong@127.0.0.1:${guarded.port}`,
      from: "a@acme.test",
      timeoutMs: 2_000,
    });
    const message = {
      to: "a@example.test",
      subject: "s",
      html: "<p>h</p>",
      text: "t",
      kind: "login-alert" as const,
      locale: "en",
    };
    await expect(mailer.send(message)).rejects.toMatchObject({ code: "EMAIL_AUTHENTICATION_FAILURE" });
    const ok = createSmtpMailer({ url: `smtp://ada:right@127.0.0.1:${guarded.port}`, from: "a@acme.test" });
    await ok.send(message);
    expect(guarded.received).toHaveLength(1);
    mailer.close();
    ok.close();
    await guarded.close();
  });

  it("send - a refused connection and a server that never answers are EMAIL_SEND_FAILURE within the timeout", async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const message = {
      to: "a@example.test",
      subject: "s",
      html: "h",
      text: "t",
      kind: "login-alert" as const,
      locale: "en",
    };
    await expect(
      createSmtpMailer({ url: `smtp://127.0.0.1:${closed}`, from: "a@acme.test" }).send(message),
    ).rejects.toMatchObject({
      code: "EMAIL_SEND_FAILURE",
    });
    const silent: Server = createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const started = Date.now();
    const hanging = createSmtpMailer({
      url: `smtp://127.0.0.1:${(silent.address() as { port: number }).port}`,
      from: "a@acme.test",
      timeoutMs: 300,
    });
    await expect(hanging.send(message)).rejects.toMatchObject({ code: "EMAIL_SEND_FAILURE" });
    expect(Date.now() - started).toBeLessThan(2_000);
    hanging.close();
    silent.close();
  });

  it("links - emails triggered over HTTP link to the configured origin even with Host: evil.test, also as the first request", async () => {
    const stores = createMemoryStores();
    const mailer = createSmtpMailer({
      url: `smtp://127.0.0.1:${smtp.port}`,
      from: "Acme <no-reply@acme.test>",
    });
    const auth = createAuth({
      secret: TEST_SECRET,
      stores,
      mailer,
      appOrigin: APP_ORIGIN,
      logger: silentLogger,
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      clock: createFakeClock({ start: Date.now() }),
    });
    const handler = createHttpHandler(auth);
    const evil = {
      host: "evil.test",
      "x-forwarded-host": "evil.test",
      "x-forwarded-proto": "http",
      "content-type": "application/json",
    };
    const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
      handler.handle({
        method: "POST",
        url: `/api/auth${path}`,
        headers: { ...evil, ...extra },
        body: JSON.stringify(body),
      });
    const credentials = { email: "ada@example.test", password: "correct horse battery staple" };
    await stores.users.create({
      id: "gh-user-00000000000000",
      email: "grace@example.test",
      emailVerified: true,
      name: null,
      passwordHash: null,
      identityProviders: ["github"],
      twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
      createdAt: 0,
    });
    expect((await post("/login", { email: "grace@example.test", password: "whatever it is" }))?.status).toBe(
      401,
    );
    const registered = await post("/register", credentials);
    expect(registered?.status).toBe(200);
    const deviceCookie = registered?.cookies
      .find((cookie) => cookie.startsWith("device_token="))
      ?.split(";")[0];
    expect(deviceCookie).toBeDefined();
    expect((await post("/register", credentials, { "accept-language": "de" }))?.status).toBe(200);
    // A sign-in from the registering browser sends no alert; one from another browser does.
    expect((await post("/login", credentials, { cookie: deviceCookie ?? "" }))?.status).toBe(200);
    expect((await post("/login", credentials))?.status).toBe(200);
    await auth.idle();
    expect(smtp.received).toHaveLength(4);
    const kinds = smtp.received.map((mail) => mail.html || "");
    for (const html of kinds) {
      const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1] ?? "");
      expect(hrefs.length).toBeGreaterThan(0);
      for (const href of hrefs) expect(new URL(href).origin).toBe(APP_ORIGIN);
      expect(html).not.toContain("evil.test");
    }
    expect(smtp.received.map((mail) => mail.subject).sort()).toEqual(
      [
        "How to sign in to Portcullis",
        "Confirm your email address for Portcullis",
        "Registrierungsversuch für dein Portcullis-Konto",
        "New sign-in to your Portcullis account",
      ].sort(),
    );
    mailer.close();
    stores.close();
  });
});
