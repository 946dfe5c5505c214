import { once } from "node:events";
import { connect } from "node:net";
import { expect } from "vitest";
import type { CallInit } from "../http-client.js";
import { APP_ORIGIN, type AppTests, expectError, JSON_HEADERS, PASSWORD } from "./fixture.js";

/** Hostile input: bodies, content types, sizes, prototype keys, and cross-site requests. */
export const csrfAndInputTests: AppTests = {
  "bad input - malformed JSON, wrong content type, wrong types, missing fields: 4xx with a code, never 500":
    async (boot) => {
      const app = await boot();
      const cases: [
        string,
        { raw?: CallInit["raw"]; body?: unknown; headers?: Record<string, string> },
        number,
        string,
      ][] = [
        ["malformed json", { raw: '{"email":', headers: JSON_HEADERS }, 400, "VALIDATION_FAILED"],
        [
          "text/plain",
          { raw: "{}", headers: { "content-type": "text/plain" } },
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        ],
        [
          "form",
          { raw: "email=a", headers: { "content-type": "application/x-www-form-urlencoded" } },
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        ],
        ["empty body", {}, 400, "VALIDATION_FAILED"],
        ["empty body, length 0", { raw: new Uint8Array(0) }, 400, "VALIDATION_FAILED"],
        [
          "a body without a content type",
          { raw: new TextEncoder().encode('{"email":"a@example.test"}') },
          415,
          "UNSUPPORTED_MEDIA_TYPE",
        ],
        ["array", { body: [] }, 400, "VALIDATION_FAILED"],
        ["null", { body: null }, 400, "VALIDATION_FAILED"],
        ["number types", { body: { email: 1, password: 2 } }, 400, "VALIDATION_FAILED"],
        [
          "object password",
          { body: { email: "a@example.test", password: { $gt: "" } } },
          400,
          "VALIDATION_FAILED",
        ],
        ["missing password", { body: { email: "a@example.test" } }, 400, "VALIDATION_FAILED"],
        [
          "proto key",
          { raw: '{"__proto__":{"admin":true},"email":"a@example.test"}', headers: JSON_HEADERS },
          400,
          "VALIDATION_FAILED",
        ],
        [
          "crlf email",
          { body: { email: "a@example.test\r\nbcc: b@example.test", password: PASSWORD } },
          400,
          "VALIDATION_FAILED",
        ],
        [
          "odd unicode",
          { body: { email: "\u202e@\u0000.test", password: "\ud800" } },
          400,
          "VALIDATION_FAILED",
        ],
      ];
      for (const [label, init, status, code] of cases) {
        const reply = await app.call(`bad input ${label}`, "POST", "/api/auth/login", init);
        expectError(reply, status, code);
        if (code === "VALIDATION_FAILED") expect(Array.isArray(reply.body.errors), label).toBe(true);
      }
      const weak = await app.call("weak password", "POST", "/api/auth/register", {
        body: { email: "weak@example.test", password: "short" },
      });
      expectError(weak, 400, "PASSWORD_POLICY_VIOLATION");
    },

  "bad input - field errors are in the request's locale (?locale=, Accept-Language), English by default; paths stay":
    async (boot) => {
      const app = await boot();
      const body = { email: "not an address", password: PASSWORD };
      const english = await app.call("field errors en", "POST", "/api/auth/register", { body });
      expectError(english, 400, "VALIDATION_FAILED");
      expect(english.body.errors).toEqual([
        { path: "email", code: "invalid_email", message: "Enter a valid email address." },
      ]);
      const german = await app.call("field errors de", "POST", "/api/auth/register?locale=de", { body });
      expectError(german, 400, "VALIDATION_FAILED");
      expect(german.body.message).toBe("Die Anfrage ist ungültig.");
      expect(german.body.errors).toEqual([
        { path: "email", code: "invalid_email", message: "Bitte gib eine gültige E-Mail-Adresse ein." },
      ]);
      const types = await app.call("field errors accept-language de", "POST", "/api/auth/login", {
        body: { email: 1 },
        headers: { "accept-language": "de-DE,de;q=0.9" },
      });
      expect(types.body.errors).toEqual([
        { path: "email", code: "not_string", message: "Muss Text sein." },
        { path: "password", code: "required", message: "Dieses Feld ist erforderlich." },
      ]);
    },

  "bad input - an empty form lists every field with a code and a message for people, all at once": async (
    boot,
  ) => {
    const app = await boot();
    const login = await app.call("empty login form", "POST", "/api/auth/login", {
      body: { email: "", password: "" },
    });
    expectError(login, 400, "VALIDATION_FAILED");
    expect(login.body.errors).toEqual([
      { path: "email", code: "required", message: "This field is required." },
      { path: "password", code: "required", message: "This field is required." },
    ]);
    const signUp = await app.call("sign-up, every field wrong (de)", "POST", "/api/auth/register?locale=de", {
      body: { email: "nope", password: "short", name: "x".repeat(101) },
    });
    expectError(signUp, 400, "VALIDATION_FAILED");
    expect(signUp.body.errors).toEqual([
      { path: "email", code: "invalid_email", message: "Bitte gib eine gültige E-Mail-Adresse ein." },
      { path: "name", code: "too_long", message: "Darf höchstens 100 Zeichen lang sein." },
      { path: "password", code: "password_too_short", message: "Verwende mindestens 8 Zeichen." },
    ]);
  },

  "bad input - a 1 MiB body is 413, with Content-Length and chunked": async (boot) => {
    const app = await boot();
    const big = JSON.stringify({ email: "a@example.test", password: "x".repeat(1024 * 1024) });
    expectError(
      await app.call("1 MiB", "POST", "/api/auth/login", { raw: big, headers: JSON_HEADERS }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 16) return controller.close();
        sent += 1;
        controller.enqueue(chunk);
      },
    });
    expectError(
      await app.call("1 MiB chunked", "POST", "/api/auth/login", { raw: stream, headers: JSON_HEADERS }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
  },

  "bad input - a chunked body far past the limit: 413, then the server closes the connection": async (
    boot,
  ) => {
    const app = await boot();
    // The core stops reading such a body; a kept-alive socket would hold the unread rest forever.
    const { hostname, port } = new URL(app.server.baseUrl);
    const socket = connect(Number(port), hostname);
    let received = "";
    const outcome = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 3000);
      socket.on("data", (data: Buffer) => {
        received += data;
      });
      socket.on("error", () => {});
      socket.on("close", () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.write(
      "POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
    );
    const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`;
    for (let i = 0; i < 64 && received === "" && !socket.destroyed; i++) {
      if (!socket.write(chunk)) await Promise.race([once(socket, "drain"), outcome]).catch(() => {});
    }
    const closed = await outcome;
    socket.destroy();
    expect(received.split("\r\n")[0]).toBe("HTTP/1.1 413 Payload Too Large");
    expect(received).toContain("auth-error-code: PAYLOAD_TOO_LARGE");
    expect(closed, "the server kept the connection open after cutting the body off").toBe(true);
  },

  "bad input - content types: the core alone judges them, whatever the framework thinks of them": async (
    boot,
  ) => {
    const app = await boot();
    const bytes = new TextEncoder().encode(JSON.stringify({ email: "a@example.test", password: PASSWORD }));
    expectError(
      await app.call("no content type with a body", "POST", "/api/auth/login", { raw: bytes }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    for (const type of ["text", "json", "application/jsonx"]) {
      expectError(
        await app.call(`content type ${type} with a body`, "POST", "/api/auth/login", {
          raw: bytes,
          headers: { "content-type": type },
        }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    }
    const { accessToken } = await app.signUp("content-types@example.test");
    // RFC 9110 allows empty parameters; Fastify's own parser would refuse this one.
    for (const type of ["Application/JSON; charset=utf-8", "application/json;;"]) {
      expectError(
        await app.call(`content type ${type} accepted`, "POST", "/api/auth/login", {
          raw: bytes,
          headers: { "content-type": type },
        }),
        401,
        "INVALID_CREDENTIALS",
      );
    }
    // An empty body needs no content type at all, nor a valid one: the refresh just finds no token.
    const refreshWithEmptyBody = async (label: string, init: CallInit) =>
      expectError(await app.call(label, "POST", "/api/auth/refresh", init), 401, "REFRESH_TOKEN_INVALID");
    for (const headers of [{}, JSON_HEADERS, { "content-type": "text" }, { "content-type": "" }]) {
      await refreshWithEmptyBody(`empty POST ${JSON.stringify(headers)}`, { headers });
    }
    const logout = await app.call("empty POST logout", "POST", "/api/auth/logout", {
      bearer: accessToken,
      headers: { "content-type": "text" },
    });
    expect(logout.status).toBe(200);
    const emptyChunked = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
    await refreshWithEmptyBody("empty chunked POST", { raw: emptyChunked });
  },

  "bad input - __proto__ and constructor keys are ignored and pollute nothing": async (boot) => {
    const app = await boot();
    const raw = `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"email":"proto@example.test","password":"${PASSWORD}"}`;
    const register = await app.call("proto register", "POST", "/api/auth/register", {
      raw,
      headers: JSON_HEADERS,
    });
    expect(register.status).toBe(200);
    const login = await app.call("proto login", "POST", "/api/auth/login", {
      raw,
      headers: JSON_HEADERS,
    });
    expect(login.status).toBe(200);
    expect(login.body.user).not.toHaveProperty("polluted");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  },

  "csrf - a state change from a foreign Origin or a cross-site fetch is 403; the app's origin passes": async (
    boot,
  ) => {
    const app = await boot();
    const { accessToken } = await app.signUp("csrf@example.test");
    const foreign = await app.call("csrf foreign", "POST", "/api/auth/logout", {
      bearer: accessToken,
      headers: { origin: "https://evil.test" },
    });
    expectError(foreign, 403, "CSRF_REJECTED");
    const crossSite = await app.call("csrf cross-site", "POST", "/api/auth/logout", {
      headers: { "sec-fetch-site": "cross-site" },
    });
    expectError(crossSite, 403, "CSRF_REJECTED");
    const own = await app.call("csrf own", "POST", "/api/auth/logout", {
      bearer: accessToken,
      headers: { origin: APP_ORIGIN },
    });
    expect(own.status).toBe(200);
  },
};
