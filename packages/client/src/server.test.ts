// The client against a real Portcullis server (express adapter, memory stores, cheap argon2) on
// 127.0.0.1, driven with Node's fetch: header mode (tokens kept by the client) and cookie mode
// (a cookie jar stands in for the browser).
import { createAuth, type EmailMessage } from "@portcullis/core";
import { createFakeClock, referenceTotp } from "@portcullis/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import {
  type AuthClientOptions,
  createAuthClient,
  memoryStorage,
  NAVIGATION_ROUTES,
  type PortcullisError,
  ROUTE_AUTH,
} from "./index.js";
import { fakeBrowser } from "./test-browser.js";
import { ADA, cookieJarFetch, listenWithAuth, PASSWORD, testAuthOptions } from "./test-server.js";

const TOTP_STEP = 30_000;

/** A server on 127.0.0.1 with the auth routes at /api/auth; its clock, emails and refresh count. */
async function startServer() {
  const clock = createFakeClock({ tick: 1 });
  const emails: EmailMessage[] = [];
  const auth = createAuth({
    ...testAuthOptions(clock),
    mailer: { send: async (message) => void emails.push(message) },
    // The back office (admin routes) for accounts whose address starts with "admin".
    admin: { authorize: (_principal, user) => user.email.startsWith("admin") },
    // Organizations, so that their routes are served too.
    organizations: { permissions: ["project:read"] },
    // API keys, so that their routes are served too.
    apiKeys: {},
    // Webhooks (not delivering), so that their routes are served too.
    webhooks: { deliver: false },
  });
  await auth.ready();
  const counts = { refresh: 0, unauthorized: 0 };
  const app = express();
  app.use((req, res, next) => {
    if (req.path === "/api/auth/refresh") counts.refresh += 1;
    // The server's time is its clock's, in the Date header as in the tokens it signs.
    res.setHeader("date", new Date(clock.now()).toUTCString());
    res.on("finish", () => {
      if (res.statusCode === 401) counts.unauthorized += 1;
    });
    next();
  });
  const baseUrl = await listenWithAuth(app, auth);
  const linkToken = (kind: string) => {
    const html = emails.filter((email) => email.kind === kind).at(-1)?.html ?? "";
    const href = /href="([^"]+\?token=[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    return new URL(href).searchParams.get("token") ?? "";
  };
  const client = (options: Partial<AuthClientOptions> = {}) =>
    createAuthClient({ baseUrl, locks: null, channel: null, now: () => clock.now(), ...options });
  /** The 6-digit code of the newest 2FA email. */
  const emailCode = () =>
    /(\d{6})/.exec(emails.filter((email) => email.kind === "two-factor-code").at(-1)?.text ?? "")?.[1] ?? "";
  return { auth, clock, counts, baseUrl, linkToken, emailCode, client };
}

type Server = Awaited<ReturnType<typeof startServer>>;

/** Ada, registered with a verified address. */
async function registerAda(server: Server) {
  const client = server.client({ mode: "header" });
  await client.register({ email: ADA, password: PASSWORD });
  await server.auth.idle();
  const user = await client.verification.verify(server.linkToken("email-verification"));
  expect(user).toMatchObject({ email: ADA, emailVerified: true });
}

/** Ada with TOTP on: its secret and recovery codes. */
async function enrolTotp(server: Server) {
  await registerAda(server);
  const client = server.client({ mode: "header" });
  await client.login({ email: ADA, password: PASSWORD });
  const stepUp = await client.stepUp({ password: PASSWORD });
  expect(stepUp).toMatchObject({ twoFactorRequired: false });
  const setup = await client.twoFactorSettings.totpSetup();
  const code = referenceTotp(setup.secret, server.clock.now());
  const user = await client.twoFactorSettings.confirmTotp({ setupToken: setup.setupToken, code });
  expect(user.twoFactorMethods).toEqual(["totp"]);
  server.clock.advance(TOTP_STEP);
  await client.logout();
  return { secret: setup.secret, recoveryCodes: setup.recoveryCodes };
}

describe("client against a real server", () => {
  it("routes - the client's route list is the server's route table (its OpenAPI document), credentials too", async () => {
    const server = await startServer();
    const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { "x-portcullis-auth"?: string }>>;
    };
    const served = new Map<string, string>();
    for (const [path, operations] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(operations))
        served.set(
          `${method.toUpperCase()} ${path.replace(/^\/api\/auth/, "").replace(/\{(\w+)\}/g, ":$1")}`,
          operation["x-portcullis-auth"] ?? "",
        );
    const known = [...Object.keys(ROUTE_AUTH), ...NAVIGATION_ROUTES];
    expect([...served.keys()].sort()).toEqual(known.sort());
    expect(Object.fromEntries(Object.keys(ROUTE_AUTH).map((key) => [key, served.get(key)]))).toEqual(
      ROUTE_AUTH,
    );
  });

  it("header mode - sign-up, verification, login, me, sessions, activity, logout, with the events", async () => {
    const server = await startServer();
    await registerAda(server);
    const client = server.client({ mode: "header" });
    const events: string[] = [];
    client.on("signedIn", (e) => events.push(`in ${e.user.email}`));
    client.on("signedOut", (e) => events.push(`out ${e.reason}`));
    const login = await client.login({ email: ADA, password: PASSWORD });
    expect(login).toMatchObject({ twoFactorRequired: false, user: { email: ADA } });
    expect(await client.me()).toMatchObject({ email: ADA });
    const { sessions } = await client.sessions.list();
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.current).toBe(true);
    const activity = await client.activity({ limit: 5 });
    expect(activity.items.length).toBeGreaterThan(0);
    await client.logout();
    expect(events).toEqual([`in ${ADA}`, "out logout"]);
    await expect(client.me()).rejects.toMatchObject({ code: "AUTHENTICATION_REQUIRED", status: 401 });
  });

  it("errors - the code, the localized message and the per-field errors of the answer", async () => {
    const server = await startServer();
    const client = server.client({ mode: "header", locale: "en" });
    const error = (await client
      .register({ email: "not an address", password: "" })
      .catch((e) => e)) as PortcullisError;
    expect(error).toMatchObject({ name: "PortcullisError", code: "VALIDATION_FAILED", status: 400 });
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.fields.map((field) => field.path).sort()).toEqual(["email", "password"]);
    expect(error.fieldMessage("email")).toEqual(expect.any(String));
    const wrong = (await client.login({ email: ADA, password: "nope" }).catch((e) => e)) as PortcullisError;
    expect(wrong).toMatchObject({ code: "INVALID_CREDENTIALS", status: 401 });
  });

  it("header mode - refreshes before the access token expires, one refresh for 10 concurrent calls", async () => {
    const server = await startServer();
    await registerAda(server);
    const client = server.client({ mode: "header" });
    await client.login({ email: ADA, password: PASSWORD });
    server.clock.advance(900_000 - 10_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.me()));
    expect(answers.every((user) => user.email === ADA)).toBe(true);
    expect(server.counts.refresh).toBe(1);
  });

  it("cookie mode - 10 concurrent calls with an expired access cookie: one refresh, then all answer", async () => {
    const server = await startServer();
    await registerAda(server);
    const client = server.client({ mode: "cookie", fetch: cookieJarFetch() });
    await client.login({ email: ADA, password: PASSWORD });
    server.clock.advance(900_000 + 1_000);
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.me()));
    expect(answers.every((user) => user.email === ADA)).toBe(true);
    expect(server.counts.refresh).toBe(1);
    expect(client.state).toBe("signed-in");
  });

  it("cookie mode, two tabs - 5 calls in each with an expired access cookie: one refresh across the tabs", async () => {
    const server = await startServer();
    await registerAda(server);
    const fetch = cookieJarFetch();
    const { locks, channels } = fakeBrowser(2);
    const tabs = channels.map((channel) => server.client({ mode: "cookie", fetch, locks, channel }));
    await tabs[0]?.login({ email: ADA, password: PASSWORD });
    server.clock.advance(900_000 + 1_000);
    const calls = tabs.flatMap((tab) => Array.from({ length: 5 }, () => tab.me()));
    const answers = await Promise.all(calls);
    expect(answers.every((user) => user.email === ADA)).toBe(true);
    expect(server.counts.refresh).toBe(1);
  });

  it("cookie mode - refreshes shortly before accessTokenExpiresAt, without a 401 first", async () => {
    const server = await startServer();
    await registerAda(server);
    const client = server.client({ mode: "cookie", fetch: cookieJarFetch() });
    const login = await client.login({ email: ADA, password: PASSWORD });
    expect(login.twoFactorRequired).toBe(false);
    const expiresAt = Date.parse(String((login as { accessTokenExpiresAt: unknown }).accessTokenExpiresAt));
    expect(expiresAt - server.clock.now()).toBeGreaterThan(899_000);
    // 40 s before the expiry: outside the 30 s margin, no refresh.
    server.clock.advance(expiresAt - server.clock.now() - 40_000);
    await client.me();
    expect(server.counts.refresh).toBe(0);
    // 20 s before: a refresh first, then the call; no 401 on the way.
    server.clock.advance(20_000);
    const answers = await Promise.all(Array.from({ length: 5 }, () => client.me()));
    expect(answers.every((user) => user.email === ADA)).toBe(true);
    expect(server.counts).toEqual({ refresh: 1, unauthorized: 0 });
    // The refresh's answer gave the next expiry: the calls after it refresh no more.
    await client.me();
    expect(server.counts.refresh).toBe(1);
  });

  it("cookie mode - a clock far ahead of the server's (its Date) does not refresh on every call", async () => {
    const server = await startServer();
    await registerAda(server);
    // This clock says 880 s later than the server's: taken as is, the token would expire in 20 s.
    const client = server.client({
      mode: "cookie",
      fetch: cookieJarFetch(),
      now: () => server.clock.now() + 880_000,
    });
    await client.login({ email: ADA, password: PASSWORD });
    for (let i = 0; i < 3; i += 1) await client.me();
    expect(server.counts.refresh).toBe(0);
    // Near the real expiry, it does refresh.
    server.clock.advance(880_000);
    await client.me();
    expect(server.counts).toEqual({ refresh: 1, unauthorized: 0 });
  });

  it("cookie mode, two tabs - a tab's refresh gives the other tab the new expiry: one refresh before it, none after", async () => {
    const server = await startServer();
    await registerAda(server);
    const fetch = cookieJarFetch();
    const { locks, channels } = fakeBrowser(2);
    const [first, second] = channels.map((channel) =>
      server.client({ mode: "cookie", fetch, locks, channel }),
    );
    await first?.login({ email: ADA, password: PASSWORD });
    await new Promise((resolve) => setTimeout(resolve, 0));
    server.clock.advance(900_000 - 10_000);
    // Both tabs at once, 10 s before the expiry the sign-in gave them both: one refresh.
    await Promise.all([first?.me(), second?.me(), first?.me(), second?.me()]);
    expect(server.counts).toEqual({ refresh: 1, unauthorized: 0 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    await Promise.all([first?.me(), second?.me()]);
    expect(server.counts.refresh).toBe(1);
  });

  it("sessionEnded - a session revoked by another device ends once in the client", async () => {
    const server = await startServer();
    await registerAda(server);
    const [laptop, phone] = [
      server.client({ mode: "header" }),
      server.client({ mode: "cookie", fetch: cookieJarFetch() }),
    ];
    await laptop.login({ email: ADA, password: PASSWORD });
    await phone.login({ email: ADA, password: PASSWORD });
    const events: string[] = [];
    phone.on("sessionEnded", (e) => events.push(`ended ${e.code}`));
    phone.on("signedOut", (e) => events.push(`out ${e.reason}`));
    expect(await laptop.sessions.revokeOthers()).toMatchObject({ revoked: 1 });
    await Promise.allSettled([phone.me(), phone.me()]);
    expect(events).toEqual([expect.stringMatching(/^ended /), "out session-ended"]);
    expect(phone.state).toBe("signed-out");
    expect(await laptop.me()).toMatchObject({ email: ADA });
  });

  it("2FA by email - the login flow mails a code and the mailed code signs in", async () => {
    const server = await startServer();
    await registerAda(server);
    const setup = server.client({ mode: "header" });
    await setup.login({ email: ADA, password: PASSWORD });
    await setup.stepUp({ password: PASSWORD });
    await setup.twoFactorSettings.sendEmailCode();
    await server.auth.idle();
    const enabled = await setup.twoFactorSettings.enableEmail({ code: server.emailCode() });
    expect(enabled.twoFactorMethods).toEqual(["email"]);

    const client = server.client({ mode: "cookie", fetch: cookieJarFetch() });
    const answer = await client.login({ email: ADA, password: PASSWORD });
    if (!answer.twoFactorRequired) throw new Error("2FA expected");
    const flow = client.twoFactor(answer);
    expect(flow.methods).toEqual(["email"]);
    server.clock.advance(120_000);
    expect(await flow.sendEmailCode()).toMatchObject({ cooldown: expect.any(Number) });
    await server.auth.idle();
    const signedIn = await flow.submit(server.emailCode());
    expect(signedIn.user.email).toBe(ADA);
    expect(flow.state).toBe("completed");
    await expect(flow.sendEmailCode()).rejects.toMatchObject({ code: "TWO_FACTOR_TOKEN_INVALID" });
  });

  for (const mode of ["header", "cookie"] as const)
    it(`2FA (${mode} mode) - login flow: a wrong code keeps it waiting, the right one signs in; recovery; step-up`, async () => {
      const server = await startServer();
      const { secret, recoveryCodes } = await enrolTotp(server);
      const options = mode === "cookie" ? { mode, fetch: cookieJarFetch() } : { mode };
      const client = server.client(options);
      const answer = await client.login({ email: ADA, password: PASSWORD });
      if (!answer.twoFactorRequired) throw new Error("2FA expected");
      const flow = client.twoFactor(answer);
      expect(flow).toMatchObject({ purpose: "login", methods: ["totp"], state: "code-required" });
      await expect(flow.submit("000000")).rejects.toMatchObject({ code: "WRONG_TWO_FACTOR_CODE" });
      expect(flow.state).toBe("code-required");
      const signedIn = await flow.submit(referenceTotp(secret, server.clock.now()));
      expect(signedIn.user.email).toBe(ADA);
      expect(flow.state).toBe("completed");
      expect(await client.me()).toMatchObject({ email: ADA });
      server.clock.advance(TOTP_STEP);

      // Step-up with a second factor, then a settings change with the step-up token.
      const stepUp = await client.stepUp({ password: PASSWORD });
      if (!stepUp.twoFactorRequired) throw new Error("2FA expected");
      const second = client.twoFactor(stepUp);
      expect(second.purpose).toBe("step-up");
      await second.submit(referenceTotp(secret, server.clock.now()));
      const user = await client.twoFactorSettings.setPreferredMethod({ method: "totp" });
      expect(user.preferredTwoFactorMethod).toBe("totp");

      // A recovery code finishes another sign-in.
      const other = server.client(mode === "cookie" ? { mode, fetch: cookieJarFetch() } : { mode });
      const again = await other.login({ email: ADA, password: PASSWORD });
      if (!again.twoFactorRequired) throw new Error("2FA expected");
      const recovered = await other.twoFactor(again).recover(recoveryCodes[0] ?? "");
      expect(recovered.user.email).toBe(ADA);

      // A 2FA token that expired: the flow moves to `expired` and refuses further codes.
      const late = server.client(mode === "cookie" ? { mode, fetch: cookieJarFetch() } : { mode });
      const third = await late.login({ email: ADA, password: PASSWORD });
      if (!third.twoFactorRequired) throw new Error("2FA expected");
      const stale = late.twoFactor(third);
      const states: string[] = [];
      stale.subscribe((state) => states.push(state));
      server.clock.advance(server.auth.options.twoFactorTokenTtlSeconds * 1000 + 1_000);
      const code = referenceTotp(secret, server.clock.now());
      await expect(stale.submit(code)).rejects.toMatchObject({ code: "TWO_FACTOR_TOKEN_INVALID" });
      expect(states).toEqual(["expired"]);
      await expect(stale.submit(code)).rejects.toMatchObject({ code: "TWO_FACTOR_TOKEN_INVALID" });
    });

  it.each(["header", "cookie"] as const)(
    "admin (%s mode) - a non-admin is refused; list with a cursor, detail, lock and unlock, end sessions, impersonate",
    async (mode) => {
      const server = await startServer();
      const make = () => server.client(mode === "cookie" ? { mode, fetch: cookieJarFetch() } : { mode });
      for (const email of [
        "admin@example.com",
        "user-a@example.com",
        "user-b@example.com",
        "user-c@example.com",
      ])
        await server.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
      const outsider = make();
      await outsider.login({ email: "user-c@example.com", password: PASSWORD });
      await outsider.stepUp({ password: PASSWORD });
      await expect(outsider.admin.listUsers()).rejects.toMatchObject({ code: "ADMIN_REQUIRED", status: 403 });

      const admin = make();
      await admin.login({ email: "admin@example.com", password: PASSWORD });
      await expect(admin.admin.listUsers()).rejects.toMatchObject({ code: "STEP_UP_REQUIRED" });
      await admin.stepUp({ password: PASSWORD });
      const first = await admin.admin.listUsers({ query: "USER-", limit: 2 });
      expect(first.items.map((user) => user.email)).toEqual(["user-a@example.com", "user-b@example.com"]);
      const next = await admin.admin.listUsers({ query: "user-", limit: 2, cursor: first.nextCursor ?? "" });
      expect(next.items.map((user) => user.email)).toEqual(["user-c@example.com"]);
      expect(next.nextCursor).toBeNull();

      const target = first.items[0]?.id ?? "";
      const victim = make();
      await victim.login({ email: "user-a@example.com", password: PASSWORD });
      const detail = await admin.admin.getUser(target);
      expect(detail.user).toMatchObject({ email: "user-a@example.com", lock: null });
      expect(detail.sessions).toHaveLength(1);
      const locked = await admin.admin.lockUser(target, { reason: "chargeback" });
      expect(locked.lock).toMatchObject({ reason: "chargeback" });
      await expect(victim.me()).rejects.toMatchObject({ status: 401 });
      await expect(make().login({ email: "user-a@example.com", password: PASSWORD })).rejects.toMatchObject({
        code: "ACCOUNT_LOCKED",
      });
      expect((await admin.admin.unlockUser(target)).lock).toBeNull();
      await make().login({ email: "user-a@example.com", password: PASSWORD });
      expect(await admin.admin.revokeSessions(target)).toEqual({ success: true, revoked: 1 });
      expect((await admin.admin.requirePasswordChange(target)).passwordChangeRequired).toBe(true);

      const other = first.items[1]?.id ?? "";
      const started = await admin.admin.impersonate(other);
      expect(started.user.email).toBe("user-b@example.com");
      expect(Date.parse(started.expiresAt)).toBeGreaterThan(server.clock.now());
      if (mode === "header") {
        // The tokens are the caller's to use: the admin's client is still the admin.
        expect(started.accessToken).toEqual(expect.any(String));
        const asUser = server.client({ mode, storage: memoryStorage() });
        const me = await asUser.request("GET /me", {
          headers: { authorization: `Bearer ${started.accessToken}` },
        });
        expect(me).toMatchObject({ email: "user-b@example.com", impersonatedBy: locked.lock?.by });
        expect((await admin.me()).email).toBe("admin@example.com");
      } else {
        // The browser (its cookie jar) is now the user; the tokens never came to the script.
        expect(started).toMatchObject({ accessToken: null, refreshToken: null });
        expect(await admin.me()).toMatchObject({
          email: "user-b@example.com",
          impersonatedBy: locked.lock?.by,
        });
        await expect(admin.admin.listUsers()).rejects.toMatchObject({ code: "IMPERSONATION_NOT_ALLOWED" });
        await admin.logout();
        await expect(admin.me()).rejects.toMatchObject({ status: 401 });
      }
    },
  );
});
