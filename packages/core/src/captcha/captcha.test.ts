import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError } from "../errors.js";
import { type CaptchaVerifier, captchaOptionsSchema } from "../options/captcha-options.js";
import type { Logger } from "../ports/logger.js";
import { createCaptcha } from "./captcha.js";

const silent = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;
const resolve = (captcha: unknown) =>
  captchaOptionsSchema.parse(captcha) as NonNullable<ReturnType<typeof captchaOptionsSchema.parse>>;
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "passed",
    (error: unknown) => (error instanceof AuthError ? error.code : String(error)),
  );

/** A siteverify on 127.0.0.1 that records each form and answers `success` for the token "yes". */
let verifyUrl = "";
const forms: Record<string, string>[] = [];
const server = createServer((request, response) => {
  let text = "";
  request.on("data", (chunk) => (text += chunk));
  request.on("end", () => {
    const form = Object.fromEntries(new URLSearchParams(text));
    forms.push({ ...form, contentType: String(request.headers["content-type"]) });
    const answers: Record<string, [number, string]> = {
      "/siteverify": [200, JSON.stringify({ success: form.response === "yes" })],
      "/failing": [500, JSON.stringify({ success: true })],
      "/stringly": [200, JSON.stringify({ success: "true" })],
      "/huge": [200, JSON.stringify({ success: true, padding: "x".repeat(70_000) })],
    };
    const [status, body] = answers[request.url ?? ""] ?? [404, ""];
    response.writeHead(status, { "content-type": "application/json" }).end(body);
  });
});
beforeAll(() =>
  new Promise<void>((done) => server.listen(0, "127.0.0.1", done)).then(() => {
    verifyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`;
  }),
);
afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("createCaptcha", () => {
  it("createCaptcha - each named provider posts secret, response and remoteip form-encoded and reads success", async () => {
    for (const provider of ["turnstile", "hcaptcha", "recaptcha"] as const) {
      const captcha = createCaptcha(
        resolve({ provider, secret: `s-${provider}`, verifyUrl, on: {} }),
        silent,
      );
      expect(await codeOf(captcha.check("yes", { ip: "203.0.113.9" }))).toBe("passed");
      expect(await codeOf(captcha.check("no", {}))).toBe("CAPTCHA_INVALID");
      expect(forms.at(-2)).toEqual({
        secret: `s-${provider}`,
        response: "yes",
        remoteip: "203.0.113.9",
        contentType: "application/x-www-form-urlencoded",
      });
    }
  });

  it("createCaptcha - a host's verifier decides; a missing token is CAPTCHA_REQUIRED without asking it", async () => {
    const asked: string[] = [];
    const verifier: CaptchaVerifier = {
      verify: async (token) => {
        asked.push(token);
        return token === "ok";
      },
    };
    const captcha = createCaptcha(resolve({ provider: verifier, on: { register: true } }), silent);
    expect(captcha.wants("register")).toBe(true);
    expect(captcha.wants("resetRequest")).toBe(false);
    expect(await codeOf(captcha.check(undefined, {}))).toBe("CAPTCHA_REQUIRED");
    expect(await codeOf(captcha.check("", {}))).toBe("CAPTCHA_REQUIRED");
    expect(await codeOf(captcha.check("ok", {}))).toBe("passed");
    expect(await codeOf(captcha.check("bad", {}))).toBe("CAPTCHA_INVALID");
    expect(asked).toEqual(["ok", "bad"]);
  });

  it("createCaptcha - an error status, a success that is not a boolean or an answer over 64 KiB is refused, or let through with failOpen", async () => {
    for (const path of ["/failing", "/stringly", "/huge"]) {
      const url = verifyUrl.replace("/siteverify", path);
      const closed = createCaptcha(
        resolve({ provider: "hcaptcha", secret: "s", verifyUrl: url, on: {} }),
        silent,
      );
      const open = createCaptcha(
        resolve({ provider: "hcaptcha", secret: "s", verifyUrl: url, failOpen: true, on: {} }),
        silent,
      );
      expect(await codeOf(closed.check("yes", {}))).toBe("CAPTCHA_INVALID");
      expect(await codeOf(open.check("yes", {}))).toBe("passed");
    }
  });

  it("createCaptcha - a verifier that never answers is refused after timeoutMs, or let through with failOpen", async () => {
    const hanging: CaptchaVerifier = { verify: () => new Promise<boolean>(() => undefined) };
    const closed = createCaptcha(resolve({ provider: hanging, timeoutMs: 100, on: {} }), silent);
    const open = createCaptcha(
      resolve({ provider: hanging, timeoutMs: 100, failOpen: true, on: {} }),
      silent,
    );
    expect(await codeOf(closed.check("t", {}))).toBe("CAPTCHA_INVALID");
    expect(await codeOf(open.check("t", {}))).toBe("passed");
  });

  it("captchaOptionsSchema - a named provider without its secret, or an unknown route, is refused at start-up", () => {
    expect(() => captchaOptionsSchema.parse({ provider: "turnstile", on: {} })).toThrow(/secret/);
    expect(() =>
      captchaOptionsSchema.parse({ provider: "turnstile", secret: "s", on: { signUp: true } }),
    ).toThrow();
    expect(() => captchaOptionsSchema.parse({ provider: "friendly", secret: "s", on: {} })).toThrow();
  });
});
