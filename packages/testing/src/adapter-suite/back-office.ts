import type { AuthOptions, SecurityEvent } from "@portcullis/core";
import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import {
  type App,
  type AppTests,
  type Boot,
  cookieHeader,
  cookieValue,
  expectError,
  PASSWORD,
} from "./fixture.js";

/** An admin is any account whose address starts with `admin` (the examples read ADMIN_EMAILS). */
const isAdmin: NonNullable<NonNullable<AuthOptions["admin"]>["authorize"]> = async (_principal, user) =>
  user.email.startsWith("admin");

/** The app with the back office on, and every security event it emits. */
async function bootAdmin(boot: Boot, overrides: Partial<AuthOptions> = {}) {
  const events: SecurityEvent[] = [];
  const app = await boot({
    admin: { authorize: isAdmin },
    email: { loginAlerts: false },
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  return { app, events };
}

/** Signs up `email`, steps up: what an admin route needs (access token and step-up header). */
async function stepUpAs(app: App, email: string) {
  const signed = await app.signUp(email);
  const stepUp = await app.call("step-up", "POST", "/api/auth/step-up", {
    bearer: signed.accessToken,
    body: { password: PASSWORD },
  });
  expect(stepUp.status).toBe(200);
  const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
  return { ...signed, headers };
}

type Admin = Awaited<ReturnType<typeof stepUpAs>>;

/** One admin route, as `admin`. */
const adminCall = (app: App, admin: Admin, label: string, method: string, path: string, body?: unknown) =>
  app.call(label, method, `/api/auth/admin${path}`, {
    bearer: admin.accessToken,
    headers: admin.headers,
    ...(body === undefined ? {} : { body }),
  });

/** The admin routes of the mounted OpenAPI document (written from the route table). */
async function adminRoutes(app: App): Promise<{ method: string; path: string }[]> {
  const reply = await app.call("openapi", "GET", "/api/auth/openapi.json", { record: false });
  const paths = reply.body.paths as Record<string, Record<string, { "x-portcullis-auth": string }>>;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation["x-portcullis-auth"] === "admin")
      .map(([method]) => ({
        method: method.toUpperCase(),
        path: path.replace(/^\/api\/auth/, "").replace(/\{\w+\}/g, "unknown"),
      })),
  );
}

/** Turns email 2FA on for `userId` in the store (the 2FA suite tests turning it on). */
async function emailTwoFactorOn(app: App, userId: string): Promise<void> {
  await app.stores.users.update(userId, {
    emailVerified: true,
    twoFactor: {
      methods: ["email"],
      preferredMethod: "email",
      totpSecretEncrypted: null,
      recoveryCodeHashes: [],
    },
  });
}

const latestCode = (app: App) =>
  /(\d{6})/.exec(
    app.emails.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "",
  )?.[1] ?? "";

const login = (app: App, label: string, email: string, password = PASSWORD) =>
  app.call(label, "POST", "/api/auth/login", { body: { email, password } });

const emailsOf = (reply: HttpReply) => (reply.body.items as { email: string }[]).map((user) => user.email);

/** The back office through the adapter: `<prefix>/admin` with `admin.authorize` (docs/back-office.md). */
export const backOfficeTests: AppTests = {
  "admin routes - a non-admin gets 403 ADMIN_REQUIRED on every admin route, with or without a step-up":
    async (boot) => {
      const { app } = await bootAdmin(boot);
      const routes = await adminRoutes(app);
      expect(routes.length).toBeGreaterThanOrEqual(7);
      const user = await stepUpAs(app, "user@example.test");
      for (const route of routes) {
        const body = route.method === "GET" ? {} : { body: {} };
        const stepped = await app.api(route.method, route.path, {
          label: `non-admin with step-up: ${route.method} ${route.path}`,
          bearer: user.accessToken,
          headers: user.headers,
          ...body,
        });
        expectError(stepped, 403, "ADMIN_REQUIRED");
        const bare = await app.api(route.method, route.path, {
          label: `non-admin: ${route.method} ${route.path}`,
          bearer: user.accessToken,
          ...body,
        });
        expectError(bare, 403, "ADMIN_REQUIRED");
      }
      const admin = await app.signUp("admin@example.test");
      const noStepUp = await app.call("admin without step-up", "GET", "/api/auth/admin/users", {
        bearer: admin.accessToken,
      });
      expectError(noStepUp, 401, "STEP_UP_REQUIRED");
      expectError(await app.call("no token", "GET", "/api/auth/admin/users"), 401, "AUTHENTICATION_REQUIRED");
    },

  "admin routes - without admin.authorize they are not mounted (404)": async (boot) => {
    const app = await boot();
    const admin = await stepUpAs(app, "admin@example.test");
    const unmounted = await app.call("list without authorize", "GET", "/api/auth/admin/users", {
      bearer: admin.accessToken,
      headers: admin.headers,
      // Not a route of the document: no route answers it (the OpenAPI test reads the transcripts).
      record: false,
    });
    expectError(unmounted, 404, "NOT_FOUND");
    expect(await adminRoutes(app)).toEqual([]);
  },

  "listUsers - 250 users by pages of 25, users added between pages: no duplicates, no gaps": async (boot) => {
    const { app } = await bootAdmin(boot);
    const admin = await stepUpAs(app, "admin@example.test");
    const address = (n: number) => `member-${String(n).padStart(4, "0")}@example.test`;
    const existing = Array.from({ length: 250 }, (_, i) => address(i * 4 + 2));
    for (const email of existing) await app.auth.admin.createUser({}, { email, emailVerified: true });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `query=Member-&limit=25${cursor === null ? "" : `&cursor=${cursor}`}`;
      const page = await app.call(`page ${pages + 1}`, "GET", `/api/auth/admin/users?${query}`, {
        bearer: admin.accessToken,
        headers: admin.headers,
        record: pages === 0,
      });
      expect(page.status).toBe(200);
      expect(emailsOf(page).length).toBeLessThanOrEqual(25);
      seen.push(...emailsOf(page));
      cursor = page.body.nextCursor as string | null;
      pages += 1;
      // Before the cursor, right after it, and at the end: none may shift a page.
      for (const n of [pages * 4, pages * 40 + 1, 1000 + pages]) {
        await app.auth.admin.createUser({}, { email: address(n), emailVerified: true });
      }
    } while (cursor !== null && pages < 100);
    expect(new Set(seen).size).toBe(seen.length);
    for (const email of existing) expect(seen).toContain(email);
    expect(seen).toEqual([...seen].sort());
    const bad = await adminCall(
      app,
      admin,
      "a cursor this server did not make",
      "GET",
      "/users?cursor=bm9wZQ",
    );
    expectError(bad, 400, "VALIDATION_FAILED");
  },

  "getUser - the user with sessions, second factors, lock state and a place for passkeys": async (boot) => {
    const { app } = await bootAdmin(boot);
    const admin = await stepUpAs(app, "admin@example.test");
    const user = await app.signUp("detail@example.test");
    const detail = await adminCall(app, admin, "get user", "GET", `/users/${user.user.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      user: { id: user.user.id, email: "detail@example.test", lock: null, passwordChangeRequired: false },
      twoFactorMethods: [],
      identities: [],
      passkeys: [],
    });
    expect(detail.body.sessions).toHaveLength(1);
    expectError(await adminCall(app, admin, "unknown user", "GET", "/users/nobody"), 404, "USER_NOT_FOUND");
  },

  "lock - every sign-in method is refused with 403 ACCOUNT_LOCKED and the live access token at once": async (
    boot,
  ) => {
    const { app, events } = await bootAdmin(boot);
    const admin = await stepUpAs(app, "admin@example.test");
    const user = await app.signUp("locked@example.test");
    const twoFactor = await app.signUp("locked-2fa@example.test");
    await emailTwoFactorOn(app, twoFactor.user.id);
    const challenge = await login(app, "login to the 2FA step", "locked-2fa@example.test");
    expect(challenge.body.twoFactorRequired).toBe(true);
    const code = latestCode(app);

    const locked = await adminCall(app, admin, "lock", "POST", `/users/${user.user.id}/lock`, {
      reason: "chargeback review",
    });
    expect(locked.status).toBe(200);
    expect(locked.body.lock).toMatchObject({ reason: "chargeback review", by: admin.user.id });
    const locked2fa = await adminCall(app, admin, "lock 2fa", "POST", `/users/${twoFactor.user.id}/lock`, {});
    expect(locked2fa.status).toBe(200);

    expectError(
      await app.call("live token", "GET", "/api/auth/me", { bearer: user.accessToken }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    const refresh = await app.call("refresh", "POST", "/api/auth/refresh", { bearer: user.refreshToken });
    expectError(refresh, 401, "REFRESH_TOKEN_INVALID");
    expectError(await login(app, "password", "locked@example.test"), 403, "ACCOUNT_LOCKED");
    expectError(
      await login(app, "wrong password", "locked@example.test", "not the password"),
      401,
      "INVALID_CREDENTIALS",
    );
    const completion = await app.call("2fa completion", "POST", "/api/auth/2fa/login", {
      headers: { "x-two-factor-authentication-token": String(challenge.body.twoFactorAuthenticationToken) },
      body: { code },
    });
    expectError(completion, 403, "ACCOUNT_LOCKED");
    await expect(app.auth.sessions.create({}, { userId: user.user.id })).rejects.toMatchObject({
      code: "ACCOUNT_LOCKED",
    });
    await expect(app.auth.admin.impersonate({}, user.user.id)).rejects.toMatchObject({
      code: "ACCOUNT_LOCKED",
    });
    expect((await app.auth.sessions.list({ principal: await adminPrincipal(app, admin) })).length).toBe(1);
    expect(
      events.find((event) => event.type === "user.locked" && event.userId === user.user.id),
    ).toMatchObject({
      actor: admin.user.id,
    });
  },

  "unlock - the account signs in again; its ended sessions stay ended": async (boot) => {
    const { app, events } = await bootAdmin(boot);
    const admin = await stepUpAs(app, "admin@example.test");
    const user = await app.signUp("unlock@example.test");
    expect((await adminCall(app, admin, "lock", "POST", `/users/${user.user.id}/lock`)).status).toBe(200);
    expectError(await login(app, "locked", "unlock@example.test"), 403, "ACCOUNT_LOCKED");
    const unlocked = await adminCall(app, admin, "unlock", "POST", `/users/${user.user.id}/unlock`);
    expect(unlocked.status).toBe(200);
    expect(unlocked.body.lock).toBeNull();
    expect((await login(app, "signs in again", "unlock@example.test")).status).toBe(200);
    expectError(
      await app.call("old token", "GET", "/api/auth/me", { bearer: user.accessToken }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    expect(events.find((event) => event.type === "user.unlocked")).toMatchObject({ actor: admin.user.id });
  },

  "revokeSessions - every session of the user ends; their access tokens are refused at once": async (
    boot,
  ) => {
    const { app, events } = await bootAdmin(boot);
    const admin = await stepUpAs(app, "admin@example.test");
    const first = await app.signUp("sessions@example.test");
    const second = await login(app, "second session", "sessions@example.test");
    const revoked = await adminCall(app, admin, "end sessions", "DELETE", `/users/${first.user.id}/sessions`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, revoked: 2 });
    for (const bearer of [first.accessToken, String(second.body.accessToken)])
      expectError(await app.call("ended", "GET", "/api/auth/me", { bearer }), 401, "ACCESS_TOKEN_INVALID");
    expect(
      (await app.call("admin still in", "GET", "/api/auth/me", { bearer: admin.accessToken })).status,
    ).toBe(200);
    expect(events.find((event) => event.type === "admin.sessions_revoked")).toMatchObject({
      actor: admin.user.id,
      userId: first.user.id,
    });
  },

  "impersonate - /me says impersonatedBy, no step-up, no admin route, in the activity, over after an hour":
    async (boot) => {
      const { app, events } = await bootAdmin(boot);
      const admin = await stepUpAs(app, "admin@example.test");
      const user = await app.signUp("support-me@example.test");
      const started = await adminCall(
        app,
        admin,
        "impersonate",
        "POST",
        `/users/${user.user.id}/impersonate`,
      );
      expect(started.status).toBe(200);
      const bearer = String(started.body.accessToken);
      const me = await app.call("me as the user", "GET", "/api/auth/me", { bearer });
      expect(me.body).toMatchObject({ id: user.user.id, impersonatedBy: admin.user.id });
      const own = await app.call("the user's own me", "GET", "/api/auth/me", { bearer: user.accessToken });
      expect(own.body.impersonatedBy).toBeUndefined();
      expectError(
        await app.call("step-up", "POST", "/api/auth/step-up", { bearer, body: { password: PASSWORD } }),
        403,
        "IMPERSONATION_NOT_ALLOWED",
      );
      const activity = await app.call("activity", "GET", "/api/auth/activity", { bearer: user.accessToken });
      expect((activity.body.items as { type: string }[]).map((item) => item.type)).toContain(
        "impersonation.started",
      );
      expect(events.find((event) => event.type === "impersonation.started")).toMatchObject({
        actor: admin.user.id,
        userId: user.user.id,
      });
      // An admin impersonated is no admin: the session cannot step up, and the routes refuse it.
      const other = await adminCall(
        app,
        admin,
        "impersonate an admin",
        "POST",
        `/users/${admin.user.id}/impersonate`,
      );
      expectError(
        await app.call("admin route while impersonating", "GET", "/api/auth/admin/users", {
          bearer: String(other.body.accessToken),
          headers: admin.headers,
        }),
        403,
        "ADMIN_REQUIRED",
      );
      const refreshed = await app.call("refresh within the hour", "POST", "/api/auth/refresh", {
        bearer: String(started.body.refreshToken),
      });
      expect(refreshed.status).toBe(200);
      const fresh = String(refreshed.body.accessToken);
      expect(
        (await app.call("me after refresh", "GET", "/api/auth/me", { bearer: fresh })).body.impersonatedBy,
      ).toBe(admin.user.id);
      app.clock.advance(3_600_000 + 10_000);
      expectError(
        await app.call("after an hour", "GET", "/api/auth/me", { bearer: fresh }),
        401,
        "ACCESS_TOKEN_EXPIRED",
      );
      const late = await app.call("refresh after the hour", "POST", "/api/auth/refresh", {
        bearer: String(refreshed.body.refreshToken),
      });
      expectError(late, 401, "SESSION_EXPIRED");
    },

  "impersonate - with cookie authentication: the browser's session cookies become the user's, no token in the body":
    async (boot) => {
      const { app } = await bootAdmin(boot);
      const admin = await app.signUp("admin@example.test");
      const user = await app.signUp("browser-user@example.test");
      const stepUp = await app.call("step-up by cookie", "POST", "/api/auth/step-up", {
        cookie: cookieHeader(admin.cookies),
        body: { password: PASSWORD },
      });
      expect(stepUp.status).toBe(200);
      const jar = `${cookieHeader(admin.cookies)}; ${cookieHeader(stepUp.cookies)}`;
      const started = await app.call(
        "impersonate by cookie",
        "POST",
        `/api/auth/admin/users/${user.user.id}/impersonate`,
        { cookie: jar },
      );
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({
        user: { id: user.user.id },
        accessToken: null,
        refreshToken: null,
      });
      expect(Date.parse(String(started.body.expiresAt))).toBeGreaterThan(app.clock.now());
      // Browser-session cookies (no Max-Age: they end with the browser), the step-up cookie cleared.
      const access = started.cookies.find((line) => line.startsWith("access_token="));
      const refresh = started.cookies.find((line) => line.startsWith("refresh_token="));
      expect(access).toMatch(/HttpOnly/);
      expect(access).not.toMatch(/Max-Age/);
      expect(refresh).not.toMatch(/Max-Age/);
      expect(started.cookies.some((line) => /^step_up_token=;.*Max-Age=0/.test(line))).toBe(true);
      const asUser = `access_token=${cookieValue(started.cookies, "access_token")}; refresh_token=${cookieValue(started.cookies, "refresh_token")}`;
      const me = await app.call("me with the new cookies", "GET", "/api/auth/me", { cookie: asUser });
      expect(me.body).toMatchObject({ id: user.user.id, impersonatedBy: admin.user.id });
      const refreshed = await app.call("refresh by cookie", "POST", "/api/auth/refresh", { cookie: asUser });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.user).toMatchObject({ id: user.user.id });
      // The admin's own session is untouched on the server (its tokens still work where they are held).
      expect((await app.call("admin me", "GET", "/api/auth/me", { bearer: admin.accessToken })).body.id).toBe(
        admin.user.id,
      );
      // With header authentication the answer is as before: tokens in the body, no cookie.
      const headerAdmin = await stepUpAs(app, "admin-header@example.test");
      const byHeader = await adminCall(
        app,
        headerAdmin,
        "impersonate by header",
        "POST",
        `/users/${user.user.id}/impersonate`,
      );
      expect(typeof byHeader.body.accessToken).toBe("string");
      expect(byHeader.cookies).toEqual([]);
    },

  "requirePasswordChange - the next login answers 403 with a token; a new password set with it signs in":
    async (boot) => {
      const { app, events } = await bootAdmin(boot);
      const admin = await stepUpAs(app, "admin@example.test");
      const user = await app.signUp("change-me@example.test");
      const required = await adminCall(
        app,
        admin,
        "require",
        "POST",
        `/users/${user.user.id}/require-password-change`,
      );
      expect(required.status).toBe(200);
      expect(required.body.passwordChangeRequired).toBe(true);
      expectError(
        await app.call("ended", "GET", "/api/auth/me", { bearer: user.accessToken }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      const refused = await login(app, "login", "change-me@example.test");
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: "PASSWORD_CHANGE_REQUIRED" });
      expect(refused.body.accessToken).toBeUndefined();
      const token = String(refused.body.passwordChangeToken);
      const same = await app.call("the same password", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword: PASSWORD },
      });
      expectError(same, 400, "PASSWORD_POLICY_VIOLATION");
      const newPassword = "a brand new passphrase for this account";
      const changed = await app.call("set the new password", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword },
      });
      expect(changed.status).toBe(200);
      expect(changed.body.accessToken).toEqual(expect.any(String));
      const again = await app.call("the token again", "POST", "/api/auth/password/change-required", {
        body: { token, newPassword: "yet another passphrase entirely" },
      });
      expectError(again, 401, "PASSWORD_CHANGE_TOKEN_INVALID");
      expectError(await login(app, "old password", "change-me@example.test"), 401, "INVALID_CREDENTIALS");
      expect((await login(app, "new password", "change-me@example.test", newPassword)).status).toBe(200);
      expect(events.find((event) => event.type === "password_change.required")).toMatchObject({
        actor: admin.user.id,
      });
    },

  "requirePasswordChange - an account with 2FA still passes its second factor after the new password": async (
    boot,
  ) => {
    const { app } = await bootAdmin(boot);
    const user = await app.signUp("change-2fa@example.test");
    await emailTwoFactorOn(app, user.user.id);
    await app.auth.admin.requirePasswordChange({ actor: "support:test" }, { userId: user.user.id });
    const refused = await login(app, "login", "change-2fa@example.test");
    expectError(refused, 403, "PASSWORD_CHANGE_REQUIRED");
    const changed = await app.call("set the new password", "POST", "/api/auth/password/change-required", {
      body: {
        token: String(refused.body.passwordChangeToken),
        newPassword: "a brand new passphrase for this account",
      },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ twoFactorRequired: true, accessToken: null });
  },
};

/** A principal of `admin`'s session, for host API calls. */
function adminPrincipal(app: App, admin: Admin) {
  return app.auth.authenticate({ token: admin.accessToken });
}
