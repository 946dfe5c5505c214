import {
  type Auth,
  type AuthOptions,
  type AuthStores,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  type Logger,
} from "@portcullis/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { createFakeClock, type FakeClock } from "../fake-clock.js";
import {
  type CallInit,
  createHttpClient,
  type ExchangeRecorder,
  type HttpClient,
  type HttpReply,
} from "../http-client.js";
import { elapse } from "../store-fixture.js";
import { type TranscriptOptions, useTranscript } from "../transcript.js";

/** A running host app built with the adapter under test. */
export interface StartedServer {
  /** e.g. `http://127.0.0.1:41234` */
  baseUrl: string;
  close(): Promise<void>;
}

export interface AdapterSuiteOptions {
  /** Shown in the describe block, e.g. "express"; names this adapter's recorded transcripts. */
  name: string;
  /**
   * Starts a host app on 127.0.0.1 that mounts the auth routes for `auth` and two host routes:
   * `GET /host/protected`, guarded by the adapter's own middleware or preHandler and answering
   * `{ userId, sessionId }` from the principal; and `POST /host/echo`, answering the JSON body as
   * parsed by the framework's own JSON parser (the adapter must leave the host's parsing alone).
   */
  start(auth: Auth): Promise<StartedServer>;
  /**
   * Fresh stores for each auth the suite builds (one per test or more), on `clock` where the
   * stores take one: the suite moves time itself so that cooldowns and orderings in the
   * transcript are the same on every run.
   */
  createStores(clock: Clock): Omit<AuthStores, "identities">;
  /**
   * For stores that keep some deadlines on their own clock (Redis keeps sessions' rotation times
   * on the server's `TIME`), which the suite's fake clock cannot move: reads that clock, in ms.
   * Tests that pass such a deadline (the refresh reuse interval) then also wait until it has moved.
   */
  storeNow?: () => number | Promise<number>;
  /**
   * Compares every test's normalized responses (statuses, headers, cookies, bodies) with the shared
   * golden transcripts, one file per area, so adapters that pass the suite answer byte for byte
   * alike; `true` uses the golden files shipped in this package. Off by default.
   */
  transcripts?: boolean | TranscriptOptions;
}

export const PASSWORD = "correct horse battery staple";
export const APP_ORIGIN = "https://app.example.test";
export const JSON_HEADERS = { "content-type": "application/json" };
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

/** One auth and host app, built inside a test and closed after it. */
export interface App {
  auth: Auth;
  server: StartedServer;
  stores: ReturnType<AdapterSuiteOptions["createStores"]>;
  clock: FakeClock;
  /**
   * Moves the fake clock by `ms` and, with `storeNow`, waits until the stores' own clock has moved
   * as far (keep `ms` short: that is a real wait).
   */
  elapse(ms: number): Promise<void>;
  /** Every email the mailer accepted, in order (await `auth.idle()` for background sends). */
  emails: EmailMessage[];
  logLines: string[];
  /** Users the test has "deleted": the UserStore port has no delete, so lookups hide them. */
  goneUserIds: Set<string>;
  /** The next `failures` sends throw. */
  mailerControl: { failures: number };
  /** Any path on the host app, recorded under `label`. */
  call(label: string, method: string, path: string, init?: CallInit): Promise<HttpReply>;
  /** Paths under `/api/auth`. */
  api: HttpClient["call"];
  /** Registers `email` (once) and signs in with Firefox on Linux: the tokens, cookies and user. */
  signUp(email: string): Promise<SignedIn>;
  /** The token of the newest email of `kind`, checked to link to the configured origin. */
  tokenFrom(kind: string): string;
}

export interface SignedIn {
  accessToken: string;
  refreshToken: string;
  cookies: string[];
  user: { id: string };
}

/** Builds an `App` for the running test, with `overrides` on top of the suite's auth options. */
export type Boot = (overrides?: Partial<AuthOptions>) => Promise<App>;

/** A test of an area: its name ("<method> - <behaviour>") and body. */
export type AppTests = Record<string, (boot: Boot) => Promise<void>>;

/** Runs `tests` in a describe block named `area`, each test with its own app and transcript section. */
export function runAppTests(options: AdapterSuiteOptions, area: string, tests: AppTests): void {
  describe(area, () => {
    const boot = createBoot(options, useTranscript(area, options.name, options.transcripts));
    for (const [name, test] of Object.entries(tests)) it(name, () => test(boot));
  });
}

/**
 * The ids of users a test made "gone": the stores answer as if they were deleted (`findById`
 * null), the joint read of an entry and its user too, which stands for `findById`.
 */
function hideGoneUsers(stores: ReturnType<AdapterSuiteOptions["createStores"]>): Set<string> {
  const goneUserIds = new Set<string>();
  const findById = stores.users.findById.bind(stores.users);
  stores.users.findById = async (id) => (goneUserIds.has(id) ? null : findById(id));
  const joint = stores.joint;
  const jointRead = joint?.findAllowedAccessTokenWithUser;
  if (joint && jointRead)
    stores.joint = {
      ...joint,
      findAllowedAccessTokenWithUser: async (jti) => {
        const found = await jointRead.call(joint, jti);
        return found && goneUserIds.has(found.entry.userId) ? { ...found, user: null } : found;
      },
    };
  return goneUserIds;
}

export function createBoot(options: AdapterSuiteOptions, record?: ExchangeRecorder): Boot {
  return async (overrides = {}) => {
    const clock = createFakeClock({ tick: 1 });
    const stores = options.createStores(clock);
    const goneUserIds = hideGoneUsers(stores);
    const emails: EmailMessage[] = [];
    const mailerControl = { failures: 0 };
    const logLines: string[] = [];
    const auth = createAuth({
      secret: "adapter-suite-secret-yRoBaYyJRXBp6a-YqxktwBnOleaom8qQEaUli8-oBtc",
      stores,
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      clock,
      logger: collectingLogger(logLines),
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
    onTestFinished(async () => {
      await auth.idle();
      await server.close();
    });
    const http = createHttpClient(server.baseUrl, record ? { record } : {});
    const api = createHttpClient(server.baseUrl, { prefix: "/api/auth", ...(record ? { record } : {}) }).call;
    const call: App["call"] = (label, method, path, init = {}) => http.call(method, path, { ...init, label });
    const signUp = async (email: string): Promise<SignedIn> => {
      await call("register", "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
      const login = await call("login", "POST", "/api/auth/login", {
        body: { email, password: PASSWORD },
        headers: { "user-agent": FIREFOX },
      });
      // A failed sign-in names what the server logged, so a run in CI can be read from its message.
      expect(
        login.status,
        `login answered ${JSON.stringify(login.body)}; logged: ${logLines.slice(-3).join(" | ")}`,
      ).toBe(200);
      return {
        accessToken: String(login.body.accessToken),
        refreshToken: String(login.body.refreshToken),
        cookies: login.cookies,
        user: login.body.user as { id: string },
      };
    };
    const tokenFrom = (kind: string) => lastLinkToken(emails, kind, logLines);
    return {
      auth,
      server,
      stores,
      clock,
      async elapse(ms) {
        clock.advance(ms);
        const { storeNow } = options;
        if (storeNow) await elapse({ store: undefined, now: storeNow }, ms);
      },
      emails,
      logLines,
      goneUserIds,
      mailerControl,
      call,
      api,
      signUp,
      tokenFrom,
    };
  };
}

function collectingLogger(lines: string[]): Logger {
  return Object.fromEntries(
    ["debug", "info", "warn", "error"].map((level) => [
      level,
      (object: object, message?: string) => lines.push(JSON.stringify({ level, ...object, message })),
    ]),
  ) as unknown as Logger;
}

/**
 * The `token` of the link in the last `kind` email of `emails`; without one, the error names
 * what was sent and logged instead.
 */
function lastLinkToken(emails: EmailMessage[], kind: string, logLines: string[]): string {
  const message = emails.filter((email) => email.kind === kind).at(-1);
  if (!message) {
    const sent = emails.map((email) => email.kind).join(", ") || "nothing";
    throw new Error(`no ${kind} email; sent: ${sent}; logged: ${logLines.slice(-3).join(" | ")}`);
  }
  return linkToken(message, kind);
}

/** The `token` of the link in `message`, checked to point at the configured origin. */
export function linkToken(
  message: EmailMessage | undefined,
  kind: string | undefined = message?.kind,
): string {
  const href = /href="([^"]+\?token=[^"]+)"/.exec(message?.html ?? "")?.[1]?.replace(/&amp;/g, "&");
  if (!href) throw new Error(`no ${kind} email with a token link`);
  expect(new URL(href).origin).toBe(APP_ORIGIN);
  return new URL(href).searchParams.get("token") ?? "";
}

export const cookieHeader = (setCookies: string[]) => setCookies.map((c) => c.split(";")[0]).join("; ");

export const cookieValue = (setCookies: string[], name: string) =>
  setCookies
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0]
    ?.slice(name.length + 1);

/**
 * A session's tokens refused: `accessToken` at /me (401 `ACCESS_TOKEN_INVALID`), then
 * `refreshToken` at /refresh (401 `REFRESH_TOKEN_INVALID`); the two calls recorded as `labels`.
 */
export async function expectTokensRefused(
  app: App,
  labels: readonly [me: string, refresh: string],
  accessToken: string | undefined,
  refreshToken: string | undefined,
): Promise<void> {
  expectError(
    await app.call(labels[0], "GET", "/api/auth/me", { bearer: accessToken }),
    401,
    "ACCESS_TOKEN_INVALID",
  );
  expectError(
    await app.call(labels[1], "POST", "/api/auth/refresh", { bearer: refreshToken }),
    401,
    "REFRESH_TOKEN_INVALID",
  );
}

/** Status and `Auth-Error-Code`; a 429 also carries a positive `Retry-After`. */
export function expectCode(reply: HttpReply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.headers.get("auth-error-code")).toBe(code);
  if (status === 429) expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
}

/** `expectCode`, and the error body of the contract: exactly its fields, a JSON content type. */
export function expectError(reply: HttpReply, status: number, code: string): void {
  expectCode(reply, status, code);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  expect(reply.body).toMatchObject({ status, code, path: expect.any(String), timestamp: expect.any(String) });
  expect(typeof reply.body.message).toBe("string");
  expect(new Date(String(reply.body.timestamp)).toISOString()).toBe(reply.body.timestamp);
  const extra = ["VALIDATION_FAILED", "PASSWORD_POLICY_VIOLATION", "PASSWORD_BREACHED"].includes(code)
    ? ["errors"]
    : status === 429
      ? ["remaining"]
      : code === "PASSWORD_CHANGE_REQUIRED"
        ? ["passwordChangeToken"]
        : [];
  expect(Object.keys(reply.body).sort()).toEqual(
    ["status", "code", "message", "path", "timestamp", ...extra].sort(),
  );
}
