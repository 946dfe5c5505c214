import { expect } from "vitest";
import {
  adminCall,
  adminPrincipal,
  adminRoutes,
  bootAdmin,
  emailsOf,
  emailTwoFactorOn,
  isAdmin,
  latestCode,
  login,
  stepUpAs,
} from "./back-office-fixture.js";
import { impersonationTests } from "./back-office-impersonation.js";
import { type App, type AppTests, expectError } from "./fixture.js";

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

  "admin routes - every admin route refuses a missing, a plain and an impersonating caller: 401 AUTHENTICATION_REQUIRED, 403 ADMIN_REQUIRED, 403 IMPERSONATION_NOT_ALLOWED":
    async (boot) => {
      const { app, events } = await bootAdmin(boot);
      const routes = await adminRoutes(app);
      expect(routes.length).toBeGreaterThanOrEqual(7);
      const admin = await stepUpAs(app, "admin@example.test");
      const user = await stepUpAs(app, "user@example.test");
      // An impersonation of the admin, sent with the admin's own step-up token: still no admin.
      const started = await adminCall(
        app,
        admin,
        "impersonate the admin",
        "POST",
        `/users/${admin.user.id}/impersonate`,
      );
      expect(started.status).toBe(200);
      const impersonating = { bearer: String(started.body.accessToken), headers: admin.headers };
      const before = events.length;
      const callers: [string, { bearer?: string; headers?: Record<string, string> }, number, string][] = [
        ["no caller", {}, 401, "AUTHENTICATION_REQUIRED"],
        ["a plain user", { bearer: user.accessToken, headers: user.headers }, 403, "ADMIN_REQUIRED"],
        ["an impersonation", impersonating, 403, "IMPERSONATION_NOT_ALLOWED"],
      ];
      for (const route of routes) {
        for (const [who, credentials, status, code] of callers) {
          const reply = await app.api(route.method, route.path, {
            label: `${who}: ${route.method} ${route.path}`,
            ...credentials,
            ...(route.method === "GET" ? {} : { body: {} }),
          });
          expectError(reply, status, code);
        }
      }
      expect(events.slice(before).filter((event) => event.actor !== undefined)).toEqual([]);
    },

  "GET /me - isAdmin is what admin.authorize says, with no store read of its own; a throwing authorize is false and logged":
    async (boot) => {
      let throwFor = "";
      const { app } = await bootAdmin(boot, {
        admin: {
          authorize: async (principal, user) => {
            if (user.email === throwFor) throw new Error("directory down");
            return isAdmin(principal, user);
          },
        },
      });
      const reads = countUserReads(app);
      const admin = await app.signUp("admin@example.test");
      const user = await app.signUp("user@example.test");
      const me = (who: { accessToken: string }, label: string) =>
        app.call(label, "GET", "/api/auth/me", { bearer: who.accessToken });
      reads.count = 0;
      const adminMe = await me(admin, "me as an admin");
      expect(adminMe.status).toBe(200);
      expect(adminMe.body.isAdmin).toBe(true);
      const readsOfMe = reads.count;
      expect((await me(user, "me as a user")).body.isAdmin).toBe(false);
      throwFor = "user@example.test";
      const failing = await me(user, "me while authorize throws");
      expect(failing.status).toBe(200);
      expect(failing.body.isAdmin).toBe(false);
      expect(app.logLines.filter((line) => line.includes('"admin.authorize_failed"'))).toHaveLength(1);
      // Without the back office: no isAdmin, and GET /me reads the store as often.
      const plain = await boot({ email: { loginAlerts: false } });
      const plainReads = countUserReads(plain);
      const someone = await plain.signUp("admin@example.test");
      plainReads.count = 0;
      const plainMe = await plain.call("me without the back office", "GET", "/api/auth/me", {
        bearer: someone.accessToken,
      });
      expect(plainMe.status).toBe(200);
      expect("isAdmin" in plainMe.body).toBe(false);
      expect(plainReads.count).toBe(readsOfMe);
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
    for (const email of existing) await app.auth.host.createUser({}, { email, emailVerified: true });
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
        await app.auth.host.createUser({}, { email: address(n), emailVerified: true });
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
    await expect(app.auth.host.impersonate({}, user.user.id)).rejects.toMatchObject({
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

  ...impersonationTests,
};

/** Counts the user store's reads of `app` from now on (`findById`, and the joint read with an allowlist entry). */
function countUserReads(app: App): { count: number } {
  const reads = { count: 0 };
  const users = app.stores.users;
  const findById = users.findById.bind(users);
  users.findById = async (id) => {
    reads.count += 1;
    return findById(id);
  };
  const joint = app.stores.joint;
  const jointRead = joint?.findAllowedAccessTokenWithUser;
  if (joint && jointRead)
    joint.findAllowedAccessTokenWithUser = async (jti) => {
      reads.count += 1;
      return jointRead.call(joint, jti);
    };
  return reads;
}
