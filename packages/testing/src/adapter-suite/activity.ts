import type { ActivityItem } from "@portcullis/core";
import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { createSoftwareAuthenticator, type RequestOptions } from "../software-authenticator.js";
import { APP_ORIGIN, type App, type AppTests, cookieHeader, expectError, PASSWORD } from "./fixture.js";

const CHROME =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

const itemsOf = (reply: HttpReply) => reply.body.items as ActivityItem[];

/** The latest emailed 2FA code. */
const latestCode = (app: App) =>
  /(\d{6})/.exec(
    app.emails.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "",
  )?.[1] ?? "";

/** The caller's activity, every page `limit` at a time through `nextCursor`. */
async function everyPage(
  app: App,
  bearer: string,
  limit: number,
): Promise<{ items: ActivityItem[]; pages: number }> {
  const items: ActivityItem[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
    const page = await app.call(`activity page ${pages + 1}`, "GET", `/api/auth/activity?${query}`, {
      bearer,
    });
    expect(page.status).toBe(200);
    expect(itemsOf(page).length).toBeLessThanOrEqual(limit);
    items.push(...itemsOf(page));
    cursor = page.body.nextCursor as string | null;
    pages += 1;
  } while (cursor !== null);
  return { items, pages };
}

/** Registers `email`, verifies it from the link and signs in from Chrome: the access token. */
async function verifiedSignIn(app: App, email: string): Promise<string> {
  await app.call("register", "POST", "/api/auth/register", { body: { email, password: PASSWORD } });
  await app.auth.idle();
  const token = app.tokenFrom("email-verification");
  expect((await app.call("verify", "POST", `/api/auth/email/verification?token=${token}`)).status).toBe(200);
  const wrong = await app.call("login wrong", "POST", "/api/auth/login", {
    body: { email, password: "not the password at all" },
    headers: { "user-agent": CHROME },
  });
  expectError(wrong, 401, "INVALID_CREDENTIALS");
  const login = await app.call("login", "POST", "/api/auth/login", {
    body: { email, password: PASSWORD },
    headers: { "user-agent": CHROME },
  });
  expect(login.status).toBe(200);
  return String(login.body.accessToken);
}

/** Step-up failed then passed, email 2FA on and off again: the step-up header. */
async function twoFactorOnAndOff(app: App, bearer: string): Promise<void> {
  const failed = await app.call("step-up wrong", "POST", "/api/auth/step-up", {
    bearer,
    body: { password: "not the password at all" },
  });
  expect(failed.status).toBe(401);
  const stepUp = await app.call("step-up", "POST", "/api/auth/step-up", {
    bearer,
    body: { password: PASSWORD },
  });
  const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
  expect((await app.call("2fa code", "POST", "/api/auth/2fa/email/send", { bearer })).status).toBe(200);
  const enabled = await app.call("2fa on", "POST", "/api/auth/2fa/email/enable", {
    bearer,
    headers,
    body: { code: latestCode(app) },
  });
  expect(enabled.status).toBe(200);
  expect((await app.call("2fa off", "DELETE", "/api/auth/2fa/email", { bearer, headers })).status).toBe(200);
}

/** What a client states about itself in a sign-in's `session`, one per way of signing in. */
const STATED = {
  password: { browser: "Portcullis Mobile 3", os: "PocketOS 7" },
  email: { browser: "Mail Reader 12", os: "DeskOS 2" },
  passkey: { browser: "Key Browser 9", os: "TabletOS 5" },
};

/** Registers a passkey for the signed-in `bearer`, then signs in with it stating `session`. */
async function passkeySignIn(app: App, bearer: string, session: object): Promise<HttpReply> {
  const stepUp = await app.api("POST", "/step-up", { bearer, body: { password: PASSWORD } });
  const settings = { bearer, headers: { "x-step-up-token": String(stepUp.body.stepUpToken) } };
  const authenticator = createSoftwareAuthenticator({ origin: APP_ORIGIN });
  const creation = await app.api("POST", "/passkeys/register/options", {
    ...settings,
    label: "passkey options",
  });
  const response = authenticator.register(creation.body as never);
  const added = await app.api("POST", "/passkeys/register", {
    ...settings,
    body: { response, name: "Laptop" },
  });
  expect(added.status, added.text).toBe(200);
  const start = await app.api("POST", "/passkeys/login/options", {
    body: {},
    label: "passkey login options",
  });
  return app.api("POST", "/passkeys/login", {
    cookie: cookieHeader(start.cookies),
    headers: { origin: APP_ORIGIN, "user-agent": CHROME },
    body: { response: authenticator.authenticate(start.body as unknown as RequestOptions), session },
    label: "passkey login",
  });
}

/** Asks for an email sign-in and signs in with its code, stating `session`. */
async function emailCodeSignIn(app: App, email: string, session: object): Promise<HttpReply> {
  await app.call("email sign-in request", "POST", "/api/auth/email-sign-in/request", { body: { email } });
  await app.auth.idle();
  const mailed = app.emails.filter((message) => message.kind === "email-sign-in").at(-1);
  const code = /^(\d{6})$/m.exec(mailed?.text ?? "")?.[1];
  return app.call("email sign-in", "POST", "/api/auth/email-sign-in", {
    body: { email, code, session },
    headers: { "user-agent": CHROME },
  });
}

/** The activity page: `GET /activity` with a cursor, only ever the caller's own events. */
export const activityTests: AppTests = {
  "activity - each security event appears after its action, newest first, with ip, browser and os": async (
    boot,
  ) => {
    const app = await boot({ email: { loginAlerts: false } });
    const email = "activity@example.test";
    const bearer = await verifiedSignIn(app, email);
    await twoFactorOnAndOff(app, bearer);
    const other = await app.signUp(email);
    const ended = await app.call("sign out others", "DELETE", "/api/auth/sessions?others=true", {
      bearer: other.accessToken,
    });
    expect(ended.body).toEqual({ success: true, revoked: 1 });
    await app.call("reset request", "POST", "/api/auth/password/reset-request", { body: { email } });
    await app.auth.idle();
    const token = app.tokenFrom("password-reset");
    const reset = await app.call("reset", "POST", `/api/auth/password/reset?token=${token}`, {
      body: { newPassword: "a brand new passphrase" },
    });
    expect(reset.status).toBe(200);
    const login = await app.call("login after reset", "POST", "/api/auth/login", {
      body: { email, password: "a brand new passphrase" },
      headers: { "user-agent": CHROME },
    });
    const activity = await app.call("activity", "GET", "/api/auth/activity", {
      bearer: String(login.body.accessToken),
    });
    expect(activity.status).toBe(200);
    expect(Object.keys(activity.body).sort()).toEqual(["items", "nextCursor"]);
    const items = itemsOf(activity);
    expect(items.map((item) => `${item.type} ${item.reason ?? ""}`.trim())).toEqual([
      "login.succeeded password",
      "password_reset.completed revoked_sessions:1",
      "password_reset.requested",
      "session.revoked revoked_others:1",
      "login.succeeded password",
      "two_factor.disabled email",
      "two_factor.enabled email",
      "step_up.failed",
      "login.succeeded password",
      "login.failed wrong_password",
      "email.verified link",
      "user.created register",
    ]);
    expect(items[0]).toMatchObject({ browser: "Chrome 126", os: "Mac OS 10.15.7", ip: expect.any(String) });
    expect(items.find((item) => item.reason === "revoked_others:1")).toMatchObject({
      browser: null,
      os: null,
    });
    const times = items.map((item) => Date.parse(item.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(activity.text).not.toMatch(/token|secret|hash|code"/i);
  },

  "activity - a sign-in's entry carries the browser and os its body states, as its session does (password, email code, passkey)":
    async (boot) => {
      const app = await boot({ webauthn: {}, emailSignIn: { enabled: true }, email: { loginAlerts: false } });
      const email = "stated-device@example.test";
      const { accessToken } = await app.signUp(email);
      const byPassword = await app.call("login stating its device", "POST", "/api/auth/login", {
        body: { email, password: PASSWORD, session: STATED.password },
        headers: { "user-agent": CHROME },
      });
      const byEmail = await emailCodeSignIn(app, email, STATED.email);
      const byPasskey = await passkeySignIn(app, accessToken, STATED.passkey);
      for (const reply of [byPassword, byEmail, byPasskey]) expect(reply.status, reply.text).toBe(200);
      const activity = await app.call("activity", "GET", "/api/auth/activity", { bearer: accessToken });
      const signIns = itemsOf(activity).filter((item) => item.type === "login.succeeded");
      const sessions = await app.call("sessions", "GET", "/api/auth/sessions", { bearer: accessToken });
      for (const [reason, device] of Object.entries(STATED)) {
        expect(signIns).toContainEqual(expect.objectContaining({ reason, ...device }));
        expect(sessions.body.sessions).toContainEqual(expect.objectContaining(device));
      }
    },

  "activity - pages through nextCursor; another user's events are never listed, their cursor included":
    async (boot) => {
      const app = await boot({ email: { loginAlerts: false } });
      const ada = await app.signUp("ada-activity@example.test");
      for (let i = 0; i < 3; i += 1) {
        await app.call("bob wrong", "POST", "/api/auth/login", {
          body: { email: "bob-activity@example.test", password: "not the password at all" },
        });
        await app.signUp("bob-activity@example.test");
      }
      const bob = await app.signUp("bob-activity@example.test");
      const adas = await app.call("ada activity", "GET", "/api/auth/activity", { bearer: ada.accessToken });
      expect(itemsOf(adas).map((item) => item.type)).toEqual(["login.succeeded", "user.created"]);
      expect(adas.body.nextCursor).toBeNull();
      const all = await app.call("bob activity", "GET", "/api/auth/activity", { bearer: bob.accessToken });
      // The first wrong password named no account yet: it is no one's activity.
      expect(itemsOf(all).map((item) => item.type)).toEqual([
        "login.succeeded",
        "login.succeeded",
        "login.failed",
        "login.succeeded",
        "login.failed",
        "login.succeeded",
        "user.created",
      ]);
      const paged = await everyPage(app, bob.accessToken, 3);
      expect(paged).toEqual({ items: itemsOf(all), pages: 3 });
      const hostView = await app.auth.host.listActivity({}, { userId: bob.user.id, limit: 100 });
      expect(hostView.items).toEqual(itemsOf(all));

      // Bob's cursor at Ada: a position in a list, never a way into Bob's.
      const bobsFirst = await app.call("bob first page", "GET", "/api/auth/activity?limit=1", {
        bearer: bob.accessToken,
      });
      const foreign = await app.call(
        "ada with bob's cursor",
        "GET",
        `/api/auth/activity?cursor=${bobsFirst.body.nextCursor}`,
        {
          bearer: ada.accessToken,
        },
      );
      expect(foreign.status).toBe(200);
      expect(itemsOf(foreign).length).toBeLessThanOrEqual(2);
      expect(itemsOf(adas)).toEqual(expect.arrayContaining(itemsOf(foreign)));
    },

  "activity - 401 without an access token; a bad cursor or limit is 400 VALIDATION_FAILED": async (boot) => {
    const app = await boot();
    expectError(
      await app.call("activity no token", "GET", "/api/auth/activity"),
      401,
      "AUTHENTICATION_REQUIRED",
    );
    const { accessToken } = await app.signUp("bad-cursor@example.test");
    for (const query of ["cursor=not-a-cursor", "cursor=%2F%2F%2F", "limit=0", "limit=101", "limit=ten"]) {
      const reply = await app.call(`activity ${query}`, "GET", `/api/auth/activity?${query}`, {
        bearer: accessToken,
      });
      expectError(reply, 400, "VALIDATION_FAILED");
    }
  },
};
