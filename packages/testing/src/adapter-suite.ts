import { once } from "node:events";
import { connect } from "node:net";
import {
  type Auth,
  type AuthOptions,
  type Clock,
  type CooldownStore,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  type Logger,
  type SessionStore,
  type UserStore,
} from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLimitsAdapterSuite } from "./limits-suite.js";
import { runTwoFactorAdapterSuite } from "./two-factor-suite.js";

/** A running host app built with the adapter under test. */
export interface StartedServer {
  /** e.g. `http://127.0.0.1:41234` */
  baseUrl: string;
  close(): Promise<void>;
}

export interface AdapterSuiteOptions {
  /** Shown in the describe block, e.g. "express". */
  name: string;
  /**
   * Starts a host app on 127.0.0.1 that mounts the auth routes for `auth` and two host routes:
   * `GET /host/protected`, guarded by the adapter's own middleware or preHandler and answering
   * `{ userId, sessionId }` from the principal; and `POST /host/echo`, answering the JSON body as
   * parsed by the framework's own JSON parser (the adapter must leave the host's parsing alone).
   */
  start(auth: Auth): Promise<StartedServer>;
  /**
   * Fresh stores for each auth the suite builds, on `clock` where the stores take one: the suite
   * moves time itself so that cooldowns and orderings in the transcript are the same on every run.
   */
  createStores(clock: Clock): { users: UserStore; cooldowns: CooldownStore; sessions: SessionStore };
  /**
   * A file every adapter compares its normalized transcript of responses with, so adapters that
   * pass the suite answer byte for byte alike (statuses, headers, cookies, bodies).
   */
  transcriptFile?: string;
}

const PASSWORD = "correct horse battery staple";
const APP_ORIGIN = "https://app.example.test";
const JSON_HEADERS = { "content-type": "application/json" };

interface Reply {
  status: number;
  headers: Headers;
  cookies: string[];
  text: string;
  body: Record<string, unknown>;
}

/** Replaces what differs between runs (tokens, ids, times) so transcripts can be compared. */
function normalize(text: string): string {
  return text
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, "<jwt>")
    .replace(/[\w-]{22}\.[\w-]{43}/g, "<refresh>")
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, "<time>")
    .replace(/"(id|sessionId)":"[\w-]{22}"/g, '"$1":"<id>"')
    .replace(/\/sessions\/[\w-]{22}/g, "/sessions/<id>")
    .replace(/token=[\w-]{43}/g, "token=<token>");
}

export function runAdapterSuite(options: AdapterSuiteOptions): void {
  runTwoFactorAdapterSuite(options);
  runLimitsAdapterSuite(options);
  describe(`adapter conformance: ${options.name}`, () => {
    const transcript: string[] = [];
    const servers: StartedServer[] = [];

    // Time moves one millisecond per reading: events keep their order, and a cooldown reads the
    // same whole seconds on every run however slow the machine is.
    const startedAt = Date.now();
    let readings = 0;
    const clock: Clock = { now: () => startedAt + readings++ };

    async function boot(overrides: Partial<AuthOptions> = {}) {
      const stores = options.createStores(clock);
      // Users the suite has "deleted": the UserStore port has no delete, so lookups hide them.
      const goneUserIds = new Set<string>();
      const findById = stores.users.findById.bind(stores.users);
      stores.users.findById = async (id) => (goneUserIds.has(id) ? null : findById(id));
      const emails: EmailMessage[] = [];
      const mailerControl = { failures: 0 };
      const logLines: string[] = [];
      const logger = Object.fromEntries(
        ["debug", "info", "warn", "error"].map((level) => [
          level,
          (object: object, message?: string) => logLines.push(JSON.stringify({ level, ...object, message })),
        ]),
      ) as unknown as Logger;
      const auth = createAuth({
        secret: "adapter-suite-secret-0123456789-abcdefghij",
        stores,
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
        clock,
        logger,
        appOrigin: APP_ORIGIN,
        mailer: {
          async send(message) {
            if (mailerControl.failures > 0) {
              mailerControl.failures -= 1;
              throw new Error("smtp down");
            }
            emails.push(message);
          },
        },
        ...overrides,
      });
      await auth.ready();
      const server = await options.start(auth);
      servers.push(server);

      const call = async (
        label: string,
        method: string,
        path: string,
        init: {
          body?: unknown;
          /** Sent as is; a string gets fetch's `text/plain` type unless a header says otherwise. */
          raw?: string | Uint8Array | ReadableStream<Uint8Array>;
          headers?: Record<string, string>;
          bearer?: string;
          cookie?: string;
          /** false for responses the host framework writes itself (not part of the parity check). */
          record?: boolean;
        } = {},
      ): Promise<Reply> => {
        const headers: Record<string, string> = {
          ...(init.body !== undefined ? JSON_HEADERS : {}),
          ...init.headers,
        };
        if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
        if (init.cookie) headers.cookie = init.cookie;
        const body = init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined);
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers,
          body,
          ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
        } as RequestInit);
        const text = await response.text();
        const cookies = response.headers.getSetCookie();
        let parsed: Record<string, unknown> = {};
        try {
          parsed = text ? JSON.parse(text) : {};
        } catch {}
        const shownHeaders = [...response.headers]
          .filter(
            ([name]) =>
              !["date", "connection", "keep-alive", "set-cookie", "transfer-encoding"].includes(name),
          )
          .map(([name, value]) => `${name}: ${value}`);
        if (init.record === false)
          return { status: response.status, headers: response.headers, cookies, text, body: parsed };
        transcript.push(
          normalize(
            [
              `### ${label}`,
              `${method} ${path} -> ${response.status}`,
              ...shownHeaders,
              ...cookies.map((c) => `set-cookie: ${c}`),
              text,
            ].join("\n"),
          ),
        );
        return { status: response.status, headers: response.headers, cookies, text, body: parsed };
      };

      const signUp = async (email: string) => {
        await call("register", "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
        const login = await call("login", "POST", "/api/auth/login", {
          body: { email, password: PASSWORD },
          headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0" },
        });
        expect(login.status).toBe(200);
        return {
          accessToken: String(login.body.accessToken),
          refreshToken: String(login.body.refreshToken),
          cookies: login.cookies,
          user: login.body.user as { id: string },
        };
      };
      /** The token of the newest email of `kind`, checked to link to the configured origin. */
      const tokenFrom = (kind: string) => {
        const message = emails.filter((email) => email.kind === kind).at(-1);
        const href = /href="([^"]+\?token=[^"]+)"/.exec(message?.html ?? "")?.[1]?.replace(/&amp;/g, "&");
        if (!href) throw new Error(`no ${kind} email with a token link`);
        expect(new URL(href).origin).toBe(APP_ORIGIN);
        return new URL(href).searchParams.get("token") ?? "";
      };
      return { auth, server, stores, emails, logLines, call, signUp, goneUserIds, mailerControl, tokenFrom };
    }

    const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]).join("; ");
    const cookieValue = (setCookies: string[], name: string) =>
      setCookies
        .find((c) => c.startsWith(`${name}=`))
        ?.split(";")[0]
        ?.slice(name.length + 1);
    const expectError = (reply: Reply, status: number, code: string) => {
      expect(reply.status, reply.text).toBe(status);
      expect(reply.headers.get("auth-error-code")).toBe(code);
      expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
      expect(reply.body).toMatchObject({
        status,
        code,
        path: expect.any(String),
        timestamp: expect.any(String),
      });
      expect(typeof reply.body.message).toBe("string");
      expect(new Date(String(reply.body.timestamp)).toISOString()).toBe(reply.body.timestamp);
      const extra = ["VALIDATION_FAILED", "PASSWORD_POLICY_VIOLATION"].includes(code)
        ? ["errors"]
        : status === 429
          ? ["remaining"]
          : [];
      expect(Object.keys(reply.body).sort()).toEqual(
        ["status", "code", "message", "path", "timestamp", ...extra].sort(),
      );
    };

    afterAll(async () => {
      await Promise.all(servers.map((server) => server.close()));
    });

    describe("default options", () => {
      let app: Awaited<ReturnType<typeof boot>>;
      beforeAll(async () => {
        app = await boot();
      });

      it("register - the same 200 for a new and an existing address", async () => {
        const first = await app.call("register new", "POST", "/api/auth/register", {
          body: { email: "reg@example.test", password: PASSWORD },
        });
        const again = await app.call("register existing", "POST", "/api/auth/register", {
          body: { email: " Reg@Example.test ", password: PASSWORD },
        });
        expect(first.status).toBe(200);
        expect(first.body).toEqual({ success: true });
        expect(again.text).toBe(first.text);
      });

      it("login flow - register, login, /me by bearer and by cookie, refresh, reuse revokes, logout", async () => {
        const { accessToken, refreshToken, cookies, user } = await app.signUp("flow@example.test");
        expect(cookieValue(cookies, "access_token")).toBe(accessToken);
        expect(cookieValue(cookies, "refresh_token")).toBe(refreshToken);

        const byBearer = await app.call("me bearer", "GET", "/api/auth/me", { bearer: accessToken });
        expect(byBearer.status).toBe(200);
        expect(byBearer.body).toMatchObject({
          id: user.id,
          email: "flow@example.test",
          emailVerified: false,
          hasPassword: true,
        });
        expect(byBearer.text).not.toMatch(/argon2|passwordHash|refreshToken/);
        const byCookie = await app.call("me cookie", "GET", "/api/auth/me", {
          cookie: cookieHeader(cookies),
        });
        expect(byCookie.text).toBe(byBearer.text);

        const refreshed = await app.call("refresh", "POST", "/api/auth/refresh", { bearer: refreshToken });
        expect(refreshed.status).toBe(200);
        const newAccess = String(refreshed.body.accessToken);
        const newRefresh = String(refreshed.body.refreshToken);
        expect(newRefresh).not.toBe(refreshToken);
        expect(cookieValue(refreshed.cookies, "refresh_token")).toBe(newRefresh);
        expect((await app.call("me new", "GET", "/api/auth/me", { bearer: newAccess })).status).toBe(200);
        expectError(
          await app.call("me old access", "GET", "/api/auth/me", { bearer: accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );

        const reuse = await app.call("refresh reuse", "POST", "/api/auth/refresh", {
          cookie: `refresh_token=${refreshToken}`,
        });
        expectError(reuse, 401, "REFRESH_TOKEN_INVALID");
        expect(reuse.cookies.some((c) => c.startsWith("refresh_token=;") && c.includes("Max-Age=0"))).toBe(
          true,
        );
        expectError(
          await app.call("me after reuse", "GET", "/api/auth/me", { bearer: newAccess }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        expectError(
          await app.call("refresh after reuse", "POST", "/api/auth/refresh", { bearer: newRefresh }),
          401,
          "REFRESH_TOKEN_INVALID",
        );

        const again = await app.signUp("flow@example.test");
        const logout = await app.call("logout", "POST", "/api/auth/logout", { bearer: again.accessToken });
        expect(logout.status).toBe(200);
        expect(logout.body).toEqual({ success: true });
        for (const name of [
          "access_token",
          "refresh_token",
          "two_factor_authentication_token",
          "step_up_token",
        ]) {
          expect(logout.cookies.find((c) => c.startsWith(`${name}=;`))).toMatch(/Max-Age=0/);
        }
        expectError(
          await app.call("me after logout", "GET", "/api/auth/me", { bearer: again.accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        expectError(
          await app.call("refresh after logout", "POST", "/api/auth/refresh", { bearer: again.refreshToken }),
          401,
          "REFRESH_TOKEN_INVALID",
        );
      });

      it("cookies - HttpOnly, SameSite=Strict, Path and Max-Age as the contract says", async () => {
        const { cookies } = await app.signUp("cookies@example.test");
        const access = cookies.find((c) => c.startsWith("access_token="));
        const refresh = cookies.find((c) => c.startsWith("refresh_token="));
        expect(access?.replace(/^access_token=[^;]+/, "")).toBe(
          "; Max-Age=900; Path=/; HttpOnly; SameSite=Strict",
        );
        expect(refresh?.replace(/^refresh_token=[^;]+/, "")).toBe(
          "; Max-Age=2592000; Path=/api/auth; HttpOnly; SameSite=Strict",
        );
      });

      it("login - repeated failures for one address are 429 LOGIN_THROTTLED with Retry-After, known or not", async () => {
        await app.signUp("throttle@example.test");
        for (const email of ["throttle@example.test", "throttle-unknown@example.test"]) {
          const replies: Reply[] = [];
          for (let i = 0; i < 6; i++) {
            replies.push(
              await app.call(`throttle ${email} ${i}`, "POST", "/api/auth/login", {
                body: { email, password: "wrong password 123" },
              }),
            );
          }
          expect(replies.slice(0, 5).map((reply) => reply.status)).toEqual([401, 401, 401, 401, 401]);
          const throttled = replies[5] as Reply;
          expectError(throttled, 429, "LOGIN_THROTTLED");
          expect(throttled.headers.get("retry-after")).toBe(String(throttled.body.remaining));
        }
      });

      it("login - wrong password, unknown email and a password-less account answer byte for byte alike", async () => {
        await app.signUp("known@example.test");
        await app.stores.users.create({
          id: "social-user-0000000000",
          email: "social@example.test",
          emailVerified: true,
          name: null,
          passwordHash: null,
          identityProviders: ["github"],
          twoFactor: {
            methods: [],
            preferredMethod: null,
            totpSecretEncrypted: null,
            recoveryCodeHashes: [],
          },
          createdAt: clock.now(),
        });
        const attempts = await Promise.all(
          ["known@example.test", "unknown@example.test", "social@example.test"].map((email) =>
            app.call(`login failure ${email}`, "POST", "/api/auth/login", {
              body: { email, password: "wrong password 123" },
            }),
          ),
        );
        const comparable = (reply: Reply) => ({
          status: reply.status,
          headers: [...reply.headers].filter(([name]) => name !== "date"),
          cookies: reply.cookies,
          body: { ...reply.body, timestamp: "" },
        });
        for (const reply of attempts) expectError(reply, 401, "INVALID_CREDENTIALS");
        expect(comparable(attempts[1] as Reply)).toEqual(comparable(attempts[0] as Reply));
        expect(comparable(attempts[2] as Reply)).toEqual(comparable(attempts[0] as Reply));
      });

      it("sessions - list marks the current one; revoke one; another user's id is 404; revoke all", async () => {
        const a1 = await app.signUp("sessions@example.test");
        const a2 = await app.signUp("sessions@example.test");
        const b = await app.signUp("other-sessions@example.test");
        const list = await app.call("sessions list", "GET", "/api/auth/sessions", { bearer: a1.accessToken });
        expect(list.status).toBe(200);
        const sessions = list.body.sessions as {
          id: string;
          current: boolean;
          browser: string;
          os: string;
        }[];
        expect(sessions).toHaveLength(2);
        expect(sessions.filter((s) => s.current)).toHaveLength(1);
        expect(sessions[0]).toMatchObject({ browser: "Firefox 130", os: "Linux" });
        const other = sessions.find((s) => !s.current);

        const bSessions = await app.call("sessions list b", "GET", "/api/auth/sessions", {
          bearer: b.accessToken,
        });
        const bId = (bSessions.body.sessions as { id: string }[])[0]?.id;
        expectError(
          await app.call("revoke foreign", "DELETE", `/api/auth/sessions/${bId}`, { bearer: a1.accessToken }),
          404,
          "NOT_FOUND",
        );

        const revoke = await app.call("revoke one", "DELETE", `/api/auth/sessions/${other?.id}`, {
          bearer: a1.accessToken,
        });
        expect(revoke.status).toBe(200);
        expectError(
          await app.call("me revoked", "GET", "/api/auth/me", { bearer: a2.accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );

        await app.signUp("sessions@example.test");
        const all = await app.call("revoke all", "DELETE", "/api/auth/sessions", { bearer: a1.accessToken });
        expect(all.body).toEqual({ success: true, revoked: 2 });
        expectError(
          await app.call("me after all", "GET", "/api/auth/me", { bearer: a1.accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        expect((await app.call("me b", "GET", "/api/auth/me", { bearer: b.accessToken })).status).toBe(200);
      });

      it("bad input - malformed JSON, wrong content type, wrong types, missing fields: 4xx with a code, never 500", async () => {
        const cases: [
          string,
          { raw?: string; body?: unknown; headers?: Record<string, string> },
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
      });

      it("bad input - a 1 MiB body is 413, with Content-Length and chunked", async () => {
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
      });

      it("bad input - a chunked body far past the limit: 413, then the server closes the connection", async () => {
        // The core stops reading such a body; a kept-alive socket would hold the unread rest forever.
        const { hostname, port } = new URL(app.server.baseUrl);
        const socket = connect(Number(port), hostname);
        let received = "";
        const outcome = new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), 3000);
          socket.on("data", (data) => {
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
      });

      it("bad input - content types: the core alone judges them, whatever the framework thinks of them", async () => {
        const bytes = new TextEncoder().encode(
          JSON.stringify({ email: "a@example.test", password: PASSWORD }),
        );
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
        // An empty body needs no content type at all, nor a valid one.
        for (const headers of [{}, JSON_HEADERS, { "content-type": "text" }, { "content-type": "" }]) {
          const empty = await app.call(`empty POST ${JSON.stringify(headers)}`, "POST", "/api/auth/refresh", {
            headers,
          });
          expectError(empty, 401, "REFRESH_TOKEN_INVALID");
        }
        const logout = await app.call("empty POST logout", "POST", "/api/auth/logout", {
          bearer: accessToken,
          headers: { "content-type": "text" },
        });
        expect(logout.status).toBe(200);
        const emptyChunked = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
        expectError(
          await app.call("empty chunked POST", "POST", "/api/auth/refresh", { raw: emptyChunked }),
          401,
          "REFRESH_TOKEN_INVALID",
        );
      });

      it("bad input - __proto__ and constructor keys are ignored and pollute nothing", async () => {
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
      });

      it("routing - unknown paths and wrong methods under the prefix are 404 NOT_FOUND; outside it the host decides", async () => {
        expectError(await app.call("unknown path", "GET", "/api/auth/nope"), 404, "NOT_FOUND");
        expectError(await app.call("wrong method", "GET", "/api/auth/login"), 404, "NOT_FOUND");
        expectError(await app.call("bare prefix", "GET", "/api/auth"), 404, "NOT_FOUND");
        expectError(await app.call("prefix slash", "GET", "/api/auth/"), 404, "NOT_FOUND");
        expectError(await app.call("trailing slash", "GET", "/api/auth/me/"), 404, "NOT_FOUND");
        for (const method of ["PUT", "PATCH", "OPTIONS", "QUERY"]) {
          expectError(await app.call(`method ${method}`, method, "/api/auth/login"), 404, "NOT_FOUND");
        }
        const head = await app.call("method HEAD", "HEAD", "/api/auth/me");
        expect(head.status).toBe(404);
        expect(head.headers.get("auth-error-code")).toBe("NOT_FOUND");
        expect(head.text).toBe("");
        const outside = await fetch(`${app.server.baseUrl}/api/authentic`);
        expect(outside.headers.get("auth-error-code")).toBeNull();
        expect(outside.status).toBe(404);
      });

      it("tokens - missing, malformed and forged access tokens are 401 with their codes, never 500", async () => {
        expectError(await app.call("me no token", "GET", "/api/auth/me"), 401, "AUTHENTICATION_REQUIRED");
        expectError(
          await app.call("me garbage", "GET", "/api/auth/me", { bearer: "garbage" }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        const none = `${Buffer.from('{"alg":"none","typ":"at+jwt"}').toString("base64url")}.${Buffer.from('{"sub":"x"}').toString("base64url")}.`;
        expectError(
          await app.call("me alg none", "GET", "/api/auth/me", { bearer: none }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        expectError(
          await app.call("refresh garbage", "POST", "/api/auth/refresh", { bearer: "garbage" }),
          401,
          "REFRESH_TOKEN_INVALID",
        );
        expectError(
          await app.call("refresh none", "POST", "/api/auth/refresh"),
          401,
          "REFRESH_TOKEN_INVALID",
        );
      });

      it("host routes - the adapter's guard gives the principal, and the same 401 codes", async () => {
        const { accessToken, user } = await app.signUp("host@example.test");
        const ok = await app.call("host ok", "GET", "/host/protected", {
          bearer: accessToken,
          record: false,
        });
        expect(ok.status).toBe(200);
        expect(ok.body).toMatchObject({ userId: user.id, sessionId: expect.any(String) });
        expectError(await app.call("host none", "GET", "/host/protected"), 401, "AUTHENTICATION_REQUIRED");
        expectError(
          await app.call("host bad", "GET", "/host/protected", { bearer: "x.y.z" }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        const german = await app.call("host locale", "GET", "/host/protected?locale=de");
        expectError(german, 401, "AUTHENTICATION_REQUIRED");
        expect(german.body.message).toBe(app.auth.translator.errorMessage("AUTHENTICATION_REQUIRED", "de"));
        expect(german.body.path).toBe("/host/protected");
        await app.call("host logout", "POST", "/api/auth/logout", { bearer: accessToken });
        expectError(
          await app.call("host after logout", "GET", "/host/protected", { bearer: accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
      });

      it("host routes - the adapter leaves the host's own JSON parsing alone", async () => {
        const echo = await app.call("host echo", "POST", "/host/echo", {
          body: { hello: "world", list: [1, 2] },
          record: false,
        });
        expect(echo.status).toBe(200);
        expect(echo.body).toEqual({ hello: "world", list: [1, 2] });
      });

      it("csrf - a state change from a foreign Origin or a cross-site fetch is 403; the app's origin passes", async () => {
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
      });

      it("locale - ?locale=de and Accept-Language: de localize the message, never the code", async () => {
        const english = await app.call("locale en", "GET", "/api/auth/me");
        const byQuery = await app.call("locale query", "GET", "/api/auth/me?locale=de");
        const byHeader = await app.call("locale header", "GET", "/api/auth/me", {
          headers: { "accept-language": "de-CH, en;q=0.5" },
        });
        const message = (locale: string) =>
          app.auth.translator.errorMessage("AUTHENTICATION_REQUIRED", locale);
        expect(message("de")).not.toBe(message("en"));
        expect(english.body.message).toBe(message("en"));
        for (const reply of [byQuery, byHeader]) {
          expectError(reply, 401, "AUTHENTICATION_REQUIRED");
          expect(reply.body.message).toBe(message("de"));
        }
        expect(byQuery.body.path).toBe("/api/auth/me");
        const login = await app.call("locale login", "POST", "/api/auth/login?locale=de", {
          body: { email: "nobody@example.test", password: PASSWORD },
        });
        expectError(login, 401, "INVALID_CREDENTIALS");
        expect(login.body.message).toBe(app.auth.translator.errorMessage("INVALID_CREDENTIALS", "de"));
      });

      it("emails - a login sends a login alert whose link uses the configured origin, whatever the Host header says", async () => {
        await app.call("register alert", "POST", "/api/auth/register", {
          body: { email: "alert@example.test", password: PASSWORD },
        });
        app.emails.length = 0;
        await app.call("login alert", "POST", "/api/auth/login", {
          body: { email: "alert@example.test", password: PASSWORD },
          headers: { "x-forwarded-host": "evil.test" },
        });
        await expect.poll(() => app.emails.length).toBe(1);
        const alert = app.emails[0];
        expect(alert).toMatchObject({ to: "alert@example.test", kind: "login-alert", locale: "en" });
        expect(alert?.html).toContain(`${APP_ORIGIN}/settings/security`);
        expect(alert?.html).not.toContain("evil.test");
      });

      it("logs - no password or token reaches a log line", async () => {
        const { accessToken, refreshToken } = await app.signUp("logs@example.test");
        await app.call("logs refresh", "POST", "/api/auth/refresh", { bearer: refreshToken });
        await app.call("logs reuse", "POST", "/api/auth/refresh", { bearer: refreshToken });
        const log = app.logLines.join("\n");
        expect(log.length).toBeGreaterThan(0);
        for (const secret of [PASSWORD, accessToken, refreshToken]) expect(log).not.toContain(secret);
      });
    });

    describe("password reset and email verification", () => {
      let app: Awaited<ReturnType<typeof boot>>;
      beforeAll(async () => {
        app = await boot();
      });

      it("reset - known and unknown addresses get identical answers; the emailed link works once and revokes sessions", async () => {
        const { accessToken } = await app.signUp("reset@example.test");
        const known = await app.call("reset request known", "POST", "/api/auth/password/reset-request", {
          body: { email: "reset@example.test" },
        });
        const unknown = await app.call("reset request unknown", "POST", "/api/auth/password/reset-request", {
          body: { email: "nobody@example.test" },
        });
        expect(known.status).toBe(200);
        expect(known.body).toEqual({ cooldown: 60 });
        expect(unknown.text).toBe(known.text);
        expect([...unknown.headers].filter(([name]) => name !== "date")).toEqual(
          [...known.headers].filter(([name]) => name !== "date"),
        );
        expect(
          app.emails.filter((email) => email.to === "nobody@example.test").map((email) => email.kind),
        ).toEqual(["no-principal-information"]);

        const token = app.tokenFrom("password-reset");
        const weak = await app.call("reset weak", "POST", `/api/auth/password/reset?token=${token}`, {
          body: { newPassword: "short" },
        });
        expectError(weak, 400, "PASSWORD_POLICY_VIOLATION");
        const reset = await app.call("reset", "POST", `/api/auth/password/reset?token=${token}`, {
          body: { newPassword: "a brand new passphrase" },
        });
        expect(reset.status).toBe(200);
        expect(reset.body).toEqual({ success: true });
        expect(reset.cookies.find((c) => c.startsWith("access_token=;"))).toMatch(/Max-Age=0/);
        const again = await app.call("reset again", "POST", `/api/auth/password/reset?token=${token}`, {
          body: { newPassword: "a brand new passphrase" },
        });
        expectError(again, 401, "PASSWORD_RESET_TOKEN_INVALID");
        expectError(
          await app.call("me after reset", "GET", "/api/auth/me", { bearer: accessToken }),
          401,
          "ACCESS_TOKEN_INVALID",
        );
        const login = await app.call("login new password", "POST", "/api/auth/login", {
          body: { email: "reset@example.test", password: "a brand new passphrase" },
        });
        expect(login.status).toBe(200);
        expectError(
          await app.call("reset no token", "POST", "/api/auth/password/reset", {
            body: { newPassword: "a brand new passphrase" },
          }),
          401,
          "PASSWORD_RESET_TOKEN_INVALID",
        );
      });

      it("reset - User@X.test and ' user@x.test ' share one cooldown: 429 with remaining and Retry-After", async () => {
        const first = await app.call("cooldown first", "POST", "/api/auth/password/reset-request", {
          body: { email: "Variant@X.test" },
        });
        expect(first.status).toBe(200);
        const second = await app.call("cooldown variant", "POST", "/api/auth/password/reset-request", {
          body: { email: " variant@x.test " },
        });
        expectError(second, 429, "EMAIL_COOLDOWN_ACTIVE");
        expect(second.body.remaining).toBeGreaterThan(0);
        expect(second.headers.get("retry-after")).toBe(String(second.body.remaining));
        const remaining = await app.call(
          "cooldown get",
          "GET",
          "/api/auth/password/reset/cooldown?email=VARIANT%40x.test",
        );
        expect(remaining.status).toBe(200);
        expect((remaining.body as { remaining: number }).remaining).toBeGreaterThan(0);
        const none = await app.call(
          "cooldown none",
          "GET",
          "/api/auth/password/reset/cooldown?email=fresh%40x.test",
        );
        expect(none.body).toEqual({ remaining: 0 });
        expectError(
          await app.call("cooldown bad email", "GET", "/api/auth/password/reset/cooldown?email=nope"),
          400,
          "VALIDATION_FAILED",
        );
      });

      it("reset - 50 concurrent requests for one address send exactly one email", async () => {
        const before = app.emails.length;
        const replies = await Promise.all(
          Array.from({ length: 50 }, () =>
            fetch(`${app.server.baseUrl}/api/auth/password/reset-request`, {
              method: "POST",
              headers: JSON_HEADERS,
              body: JSON.stringify({ email: "burst@example.test" }),
            }).then((reply) => reply.status),
          ),
        );
        expect(replies.filter((status) => status === 200)).toHaveLength(1);
        expect(replies.filter((status) => status === 429)).toHaveLength(49);
        expect(app.emails.length - before).toBe(1);
      });

      it("reset - a failing mailer is 500 EMAIL_SEND_FAILURE, the cooldown is released, a retry sends exactly once", async () => {
        app.mailerControl.failures = 1;
        const before = app.emails.length;
        const failed = await app.call("mailer down", "POST", "/api/auth/password/reset-request", {
          body: { email: "flaky@example.test" },
        });
        expectError(failed, 500, "EMAIL_SEND_FAILURE");
        expect(failed.text).not.toContain("smtp down");
        expect(
          (
            await app.call(
              "mailer down cooldown",
              "GET",
              "/api/auth/password/reset/cooldown?email=flaky%40example.test",
            )
          ).body,
        ).toEqual({
          remaining: 0,
        });
        expect(
          (
            await app.call("mailer retry", "POST", "/api/auth/password/reset-request", {
              body: { email: "flaky@example.test" },
            })
          ).status,
        ).toBe(200);
        expect(app.emails.length - before).toBe(1);
      });

      it("verification - every row of the resend table: 401, 404, 304 (no body), 429, 200; the link verifies once", async () => {
        expectError(
          await app.call("resend no token", "POST", "/api/auth/email/verification/send"),
          401,
          "AUTHENTICATION_REQUIRED",
        );
        expectError(
          await app.call("resend bad token", "POST", "/api/auth/email/verification/send", { bearer: "bad" }),
          401,
          "ACCESS_TOKEN_INVALID",
        );

        const { accessToken, user } = await app.signUp("verify@example.test");
        await expect
          .poll(() =>
            app.emails.some(
              (email) => email.to === "verify@example.test" && email.kind === "email-verification",
            ),
          )
          .toBe(true);
        const cooling = await app.call("resend cooldown", "POST", "/api/auth/email/verification/send", {
          bearer: accessToken,
        });
        expectError(cooling, 429, "EMAIL_COOLDOWN_ACTIVE");
        expect(cooling.headers.get("retry-after")).toBe(String(cooling.body.remaining));
        const remaining = await app.call(
          "verification cooldown",
          "GET",
          "/api/auth/email/verification/cooldown",
          { bearer: accessToken },
        );
        expect((remaining.body as { remaining: number }).remaining).toBeGreaterThan(0);

        await app.stores.cooldowns.release("email:email-verification:verify@example.test");
        const sent = await app.call("resend ok", "POST", "/api/auth/email/verification/send?locale=de", {
          bearer: accessToken,
        });
        expect(sent.status).toBe(200);
        expect(sent.body).toEqual({ cooldown: 60 });
        expect(app.emails.at(-1)).toMatchObject({
          kind: "email-verification",
          locale: "de",
          to: "verify@example.test",
        });

        const token = app.tokenFrom("email-verification");
        const verified = await app.call("verify", "POST", `/api/auth/email/verification?token=${token}`);
        expect(verified.status).toBe(200);
        expect(verified.body).toMatchObject({ id: user.id, emailVerified: true });
        const reused = await app.call("verify again", "POST", `/api/auth/email/verification?token=${token}`);
        expect(reused.status).toBe(304);
        expect(reused.headers.get("auth-error-code")).toBe("EMAIL_ALREADY_VERIFIED");
        expect(reused.text).toBe("");
        const already = await app.call("resend verified", "POST", "/api/auth/email/verification/send", {
          bearer: accessToken,
        });
        expect(already.status).toBe(304);
        expect(already.headers.get("auth-error-code")).toBe("EMAIL_ALREADY_VERIFIED");
        expectError(
          await app.call(
            "verify garbage",
            "POST",
            "/api/auth/email/verification?token=garbage-token-value-123",
          ),
          401,
          "EMAIL_VERIFICATION_TOKEN_INVALID",
        );

        app.goneUserIds.add(user.id);
        expectError(
          await app.call("resend gone", "POST", "/api/auth/email/verification/send", { bearer: accessToken }),
          404,
          "USER_NOT_FOUND",
        );
        app.goneUserIds.delete(user.id);
      });
    });

    describe("email disabled", () => {
      it("verification resend and reset request are 503 EMAIL_DISABLED", async () => {
        const app = await boot({ email: { enabled: false } });
        const { accessToken } = await app.signUp("disabled@example.test");
        expectError(
          await app.call("disabled resend", "POST", "/api/auth/email/verification/send", {
            bearer: accessToken,
          }),
          503,
          "EMAIL_DISABLED",
        );
        expectError(
          await app.call("disabled resend no token", "POST", "/api/auth/email/verification/send"),
          401,
          "AUTHENTICATION_REQUIRED",
        );
        expectError(
          await app.call("disabled reset", "POST", "/api/auth/password/reset-request", {
            body: { email: "disabled@example.test" },
          }),
          503,
          "EMAIL_DISABLED",
        );
        expect(app.emails).toEqual([]);
      });
    });

    describe("allowHeaderAuthentication: false", () => {
      it("login - token fields are null and bearer headers are ignored; cookies still work", async () => {
        const app = await boot({ allowHeaderAuthentication: false, email: { enabled: false } });
        await app.call("no-header register", "POST", "/api/auth/register", {
          body: { email: "c@example.test", password: PASSWORD },
        });
        const login = await app.call("no-header login", "POST", "/api/auth/login", {
          body: { email: "c@example.test", password: PASSWORD },
        });
        expect(login.body).toMatchObject({
          accessToken: null,
          refreshToken: null,
          twoFactorRequired: false,
          twoFactorAuthenticationToken: null,
        });
        const access = cookieValue(login.cookies, "access_token") ?? "";
        expectError(
          await app.call("no-header bearer", "GET", "/api/auth/me", { bearer: access }),
          401,
          "AUTHENTICATION_REQUIRED",
        );
        expect(
          (await app.call("no-header cookie", "GET", "/api/auth/me", { cookie: cookieHeader(login.cookies) }))
            .status,
        ).toBe(200);
      });
    });

    describe("header and cookie both present", () => {
      it("preferHeaderAuthentication - the preferred source alone decides", async () => {
        for (const prefer of [true, false]) {
          const app = await boot({ preferHeaderAuthentication: prefer, email: { enabled: false } });
          const { accessToken, cookies } = await app.signUp(`prefer-${prefer}@example.test`);
          const validCookie = cookieHeader(cookies);
          const headerWins = await app.call(`prefer ${prefer} bad cookie`, "GET", "/api/auth/me", {
            bearer: accessToken,
            cookie: "access_token=bad",
          });
          const cookieWins = await app.call(`prefer ${prefer} bad header`, "GET", "/api/auth/me", {
            bearer: "bad",
            cookie: validCookie,
          });
          if (prefer) {
            expect(headerWins.status).toBe(200);
            expectError(cookieWins, 401, "ACCESS_TOKEN_INVALID");
          } else {
            expectError(headerWins, 401, "ACCESS_TOKEN_INVALID");
            expect(cookieWins.status).toBe(200);
          }
        }
      });
    });

    describe("cookie options", () => {
      it("cookies.hostPrefix - __Host- on Path=/ cookies, __Secure- on the refresh cookie, Secure on both", async () => {
        const app = await boot({ cookies: { secure: true, hostPrefix: true }, email: { enabled: false } });
        const { cookies } = await app.signUp("prefix@example.test");
        expect(cookies.find((c) => c.startsWith("__Host-access_token="))).toMatch(
          /; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
        );
        expect(cookies.find((c) => c.startsWith("__Secure-refresh_token="))).toMatch(
          /; Path=\/api\/auth; HttpOnly; Secure; SameSite=Strict$/,
        );
      });
    });

    if (options.transcriptFile) {
      const file = options.transcriptFile;
      it("transcript - every response matches the shared transcript (adapters answer alike)", async () => {
        await expect(`${transcript.join("\n\n")}\n`).toMatchFileSnapshot(file);
      });
    }
  });
}
