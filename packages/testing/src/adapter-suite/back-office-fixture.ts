// What the back-office tests of the adapter suite share (back-office.ts,
// back-office-impersonation.ts): an app with the back office on, a stepped-up admin, calls.
import type { AuthOptions, SecurityEvent } from "@portcullis/core";
import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { type App, type Boot, PASSWORD } from "./fixture.js";

/** An admin is any account whose address starts with `admin` (the examples read ADMIN_EMAILS). */
export const isAdmin: NonNullable<NonNullable<AuthOptions["admin"]>["authorize"]> = async (
  _principal,
  user,
) => user.email.startsWith("admin");

/** The app with the back office on, and every security event it emits. */
export async function bootAdmin(boot: Boot, overrides: Partial<AuthOptions> = {}) {
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
export async function stepUpAs(app: App, email: string) {
  const signed = await app.signUp(email);
  const stepUp = await app.call("step-up", "POST", "/api/auth/step-up", {
    bearer: signed.accessToken,
    body: { password: PASSWORD },
  });
  expect(stepUp.status).toBe(200);
  const headers = { "x-step-up-token": String(stepUp.body.stepUpToken) };
  return { ...signed, headers };
}

export type Admin = Awaited<ReturnType<typeof stepUpAs>>;

/** One admin route, as `admin`. */
export const adminCall = (
  app: App,
  admin: Admin,
  label: string,
  method: string,
  path: string,
  body?: unknown,
) =>
  app.call(label, method, `/api/auth/admin${path}`, {
    bearer: admin.accessToken,
    headers: admin.headers,
    ...(body === undefined ? {} : { body }),
  });

/** The admin routes of the mounted OpenAPI document (written from the route table). */
export async function adminRoutes(app: App): Promise<{ method: string; path: string }[]> {
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
export async function emailTwoFactorOn(app: App, userId: string): Promise<void> {
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

export const latestCode = (app: App) =>
  /(\d{6})/.exec(
    app.emails.filter((message) => message.kind === "two-factor-code").at(-1)?.text ?? "",
  )?.[1] ?? "";

export const login = (app: App, label: string, email: string, password = PASSWORD) =>
  app.call(label, "POST", "/api/auth/login", { body: { email, password } });

export const emailsOf = (reply: HttpReply) =>
  (reply.body.items as { email: string }[]).map((user) => user.email);

/** A principal of `admin`'s session, for host API calls. */
export function adminPrincipal(app: App, admin: Admin) {
  return app.auth.authenticate({ token: admin.accessToken });
}
