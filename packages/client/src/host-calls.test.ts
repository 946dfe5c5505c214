// `client.fetch` for the host's own routes, email sign-in, and the idle timeout of an open tab,
// against a real server (express adapter, memory stores, a fake clock shared with the client).
import { requireAuth } from "@portcullis/adapter-express";
import { createAuth, type EmailMessage } from "@portcullis/core";
import { createFakeClock, referenceTotp } from "@portcullis/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import { type AuthClientOptions, createAuthClient } from "./index.js";
import { ADA, cookieJarFetch, listenWithAuth, PASSWORD, testAuthOptions } from "./test-server.js";

const IDLE_SECONDS = 3600;
const ACCESS_SECONDS = 900;

/** A server with email sign-in, a one-hour idle timeout and a host route, `GET /api/orders`. */
async function startServer() {
  const clock = createFakeClock({ tick: 1 });
  const emails: EmailMessage[] = [];
  const auth = createAuth({
    ...testAuthOptions(clock),
    accessTokenTtlSeconds: ACCESS_SECONDS,
    idleTimeoutSeconds: IDLE_SECONDS,
    emailSignIn: { enabled: true },
    mailer: { send: async (message) => void emails.push(message) },
  });
  await auth.ready();
  const counts = { refresh: 0, orders: 0 };
  const app = express();
  app.use((req, res, next) => {
    if (req.path === "/api/auth/refresh") counts.refresh += 1;
    res.setHeader("date", new Date(clock.now()).toUTCString());
    next();
  });
  app.post("/api/orders", express.text(), (_req, _res, next) => {
    counts.orders += 1;
    next();
  });
  app.post(
    "/api/orders",
    requireAuth(auth, (req, res) => void res.json({ user: req.auth.userId, body: req.body })),
  );
  const baseUrl = await listenWithAuth(app, auth);
  const origin = new URL(baseUrl).origin;
  const client = (options: Partial<AuthClientOptions> = {}) =>
    createAuthClient({ baseUrl, locks: null, channel: null, now: () => clock.now(), ...options });
  const lastEmail = (kind: string) => emails.filter((email) => email.kind === kind).at(-1);
  const register = async () => {
    const anon = client({ mode: "header" });
    await anon.register({ email: ADA, password: PASSWORD });
    await auth.idle();
    const html = lastEmail("email-verification")?.html ?? "";
    const href = /href="([^"]+\?token=[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    await anon.verification.verify(new URL(href).searchParams.get("token") ?? "");
  };
  return { auth, clock, counts, origin, client, lastEmail, register };
}

describe("client.fetch", () => {
  it("fetch - header mode: the host's route gets the bearer token; an expiring token is refreshed once for 10 concurrent requests", async () => {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "header" });
    const login = await client.login({ email: ADA, password: PASSWORD });
    const url = `${server.origin}/api/orders`;
    const first = await client.fetch(url, { method: "POST", body: "one" });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ user: login.user?.id, body: "one" });
    expect(server.counts.refresh).toBe(0);
    server.clock.advance((ACCESS_SECONDS + 1) * 1000);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.fetch(url, { method: "POST", body: `n${i}` })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(server.counts.refresh).toBe(1);
  });

  it("fetch - cookie mode, a page that knows no expiry: 10 concurrent 401s share one refresh, each retried once with the new cookie", async () => {
    const server = await startServer();
    await server.register();
    const jar = cookieJarFetch();
    await server.client({ mode: "cookie", fetch: jar }).login({ email: ADA, password: PASSWORD });
    // A page loaded later: the same cookies, no expiry noted.
    const page = server.client({ mode: "cookie", fetch: jar });
    server.clock.advance((ACCESS_SECONDS + 1) * 1000);
    const before = server.counts.orders;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        page.fetch(`${server.origin}/api/orders`, { method: "POST", body: `n${i}` }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(server.counts.refresh).toBe(1);
    expect(server.counts.orders - before).toBe(20);
    expect(page.state).toBe("signed-in");
  });

  it("fetch - a refresh that fails signs the client out, and the request goes without a token (401)", async () => {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "header" });
    await client.login({ email: ADA, password: PASSWORD });
    const events: string[] = [];
    client.on("signedOut", (event) => events.push(`${event.reason} ${event.code}`));
    server.clock.advance((IDLE_SECONDS + 1) * 1000);
    const answer = await client.fetch(`${server.origin}/api/orders`, { method: "POST", body: "x" });
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
    expect(server.counts.refresh).toBe(1);
    expect(events).toEqual(["session-ended SESSION_EXPIRED"]);
    expect(client.state).toBe("signed-out");
  });
});

describe("email sign-in", () => {
  it("requestEmailSignIn, signInWithEmail - the emailed code signs in, with the signedIn event", async () => {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "header" });
    const signedIn: string[] = [];
    client.on("signedIn", (event) => signedIn.push(event.user.email));
    const { cooldown } = await client.requestEmailSignIn(ADA);
    expect(cooldown).toBeGreaterThan(0);
    await server.auth.idle();
    const code = /(\d{6,})/.exec(server.lastEmail("email-sign-in")?.text ?? "")?.[1] ?? "";
    const answer = await client.signInWithEmail({ email: ADA, code }, { rememberMe: true });
    expect(answer).toMatchObject({ twoFactorRequired: false, user: { email: ADA } });
    expect(signedIn).toEqual([ADA]);
    expect(await client.me()).toMatchObject({ email: ADA });
  });

  it("signInWithEmail - the link's token; a used token is refused with EMAIL_SIGN_IN_INVALID", async () => {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "cookie", fetch: cookieJarFetch() });
    await client.requestEmailSignIn(ADA);
    await server.auth.idle();
    const html = server.lastEmail("email-sign-in")?.html ?? "";
    const href = /href="([^"]+\?token=[^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? "";
    const token = new URL(href).searchParams.get("token") ?? "";
    expect(await client.signInWithEmail({ token })).toMatchObject({ twoFactorRequired: false });
    expect(client.state).toBe("signed-in");
    await expect(client.signInWithEmail({ token })).rejects.toMatchObject({ code: "EMAIL_SIGN_IN_INVALID" });
  });

  it("signInWithEmail - an account with TOTP answers the 2FA step, which the flow completes", async () => {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "header" });
    await client.login({ email: ADA, password: PASSWORD });
    await client.stepUp({ password: PASSWORD });
    const setup = await client.twoFactorSettings.totpSetup();
    const code = referenceTotp(setup.secret, server.clock.now());
    await client.twoFactorSettings.confirmTotp({ setupToken: setup.setupToken, code });
    server.clock.advance(30_000);
    await client.logout();
    await client.requestEmailSignIn(ADA);
    await server.auth.idle();
    const emailed = /(\d{6,})/.exec(server.lastEmail("email-sign-in")?.text ?? "")?.[1] ?? "";
    const answer = await client.signInWithEmail({ email: ADA, code: emailed });
    expect(answer.twoFactorRequired).toBe(true);
    if (!answer.twoFactorRequired) return;
    const done = await client.twoFactor(answer).submit(referenceTotp(setup.secret, server.clock.now()));
    expect(done.user.email).toBe(ADA);
    expect(client.state).toBe("signed-in");
  });
});

describe("idle timeout", () => {
  /** Ada signed in; every 5 minutes of the server's clock for `minutes`, `each` runs. */
  async function spend(
    minutes: number,
    each: (client: ReturnType<typeof createAuthClient>) => Promise<unknown>,
  ) {
    const server = await startServer();
    await server.register();
    const client = server.client({ mode: "header" });
    await client.login({ email: ADA, password: PASSWORD });
    const events: string[] = [];
    client.on("sessionEnded", (event) => events.push(`ended ${event.code}`));
    client.on("signedOut", (event) => events.push(`${event.reason} ${event.code}`));
    for (let at = 5; at <= minutes; at += 5) {
      server.clock.advance(5 * 60_000);
      await each(client).catch(() => {});
    }
    return { server, client, events };
  }
  const poll = (client: ReturnType<typeof createAuthClient>) =>
    client.request("GET /me", { background: true });

  it("touch - a tab left alone (background polls only) refreshes nothing and is signed out at the next activity past the idle timeout", async () => {
    const { server, client, events } = await spend(65, poll);
    expect(server.counts.refresh).toBe(0);
    await expect(poll(client)).rejects.toMatchObject({ code: "ACCESS_TOKEN_EXPIRED" });
    expect(events).toEqual([]);
    await client.touch();
    expect(server.counts.refresh).toBe(1);
    expect(events).toEqual(["ended SESSION_EXPIRED", "session-ended SESSION_EXPIRED"]);
    expect(client.state).toBe("signed-out");
  });

  it("touch - a tab in use (touched every 5 minutes, polled) stays signed in past twice the idle timeout", async () => {
    const { server, client, events } = await spend(125, async (tab) => {
      await tab.touch();
      await poll(tab);
    });
    expect(events).toEqual([]);
    expect(server.counts.refresh).toBeGreaterThanOrEqual(125 / 15 - 1);
    expect(await client.me()).toMatchObject({ email: ADA });
  });

  it("request - calls made by the user are activity: a tab calling every 5 minutes stays signed in", async () => {
    const { client, events } = await spend(125, (tab) => tab.me());
    expect(events).toEqual([]);
    expect(client.state).toBe("signed-in");
  });

  it("fetch - a background fetch of an idle tab is answered 401 without a refresh", async () => {
    const { server, client } = await spend(20, poll);
    const answer = await client.fetch(`${server.origin}/api/orders`, {
      method: "POST",
      body: "x",
      background: true,
    });
    expect(answer.status).toBe(401);
    expect(server.counts.refresh).toBe(0);
  });
});
