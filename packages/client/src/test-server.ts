import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter, requirePermission } from "@portcullis/adapter-express";
import { type Auth, type Clock, createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import express, { type Express } from "express";
import { afterEach } from "vitest";
import { type AuthClient, type AuthClientOptions, createAuthClient } from "./index.js";

// Test support (not built into the package): a real server for the client's tests.

/** The password of the tests' user. */
export const PASSWORD = "correct horse battery staple 42";
/** The address of the tests' user, Ada. */
export const ADA = "ada@example.com";
/** The client's two modes: tokens kept by the client and sent in headers, or held as cookies. */
export const MODES = ["header", "cookie"] as const;
/** The app's origin (`appOrigin` of the tests' servers). */
export const APP_ORIGIN = "https://app.example.test";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * Mounts `auth`'s routes on `app` (after what the test put there), listens on 127.0.0.1 and stops
 * after the test (the auth's background work first). Resolves to the routes' base URL.
 */
export async function listenWithAuth(app: Express, auth: Auth): Promise<string> {
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(async () => {
    await auth.idle();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`;
}

/**
 * The `createAuth` options every client test's server shares: a fixed secret, memory stores and
 * cheap argon2 on `clock`, the app's origin, and tokens in headers allowed (the client's header mode).
 */
export function testAuthOptions(clock: Clock) {
  return {
    secret: "client-test-secret-yRoBaYyJRXBp6a-YqxktwBnOleaom8qQEaUli8-oBtc",
    stores: createMemoryStores({ clock }),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    clock,
    logger: silentLogger,
    appOrigin: APP_ORIGIN,
    allowHeaderAuthentication: true,
  };
}

/** An Express app whose answers carry `clock`'s time in their `date` header, as the tokens it signs do. */
export function appOnClock(clock: Clock): Express {
  const app = express();
  app.use((_req, res, next) => {
    res.setHeader("date", new Date(clock.now()).toUTCString());
    next();
  });
  return app;
}

/**
 * An auth on `clock` (the shared options, `options`, emails dropped) with Ada's verified account,
 * and an app on `clock` whose host route `GET /api/projects` needs `project:read` and answers
 * with the active organization's id.
 */
export async function projectsApp(clock: Clock, options: Partial<Parameters<typeof createAuth>[0]>) {
  const auth = createAuth({ ...testAuthOptions(clock), mailer: { send: async () => {} }, ...options });
  await auth.ready();
  await auth.host.createUser({}, { email: ADA, password: PASSWORD, emailVerified: true });
  const app = appOnClock(clock);
  app.get(
    "/api/projects",
    requirePermission(auth, "project:read"),
    (req, res) => void res.json({ organizationId: req.organization?.organizationId }),
  );
  return { auth, app };
}

/**
 * A client of `mode` against `baseUrl` on `clock`, signed in as `email` (a cookie jar stands in
 * for the browser in cookie mode); `options` are passed on to `createAuthClient`.
 */
export async function signedInClient(
  baseUrl: string,
  clock: Clock,
  mode: "header" | "cookie",
  credentials: { email: string; password: string },
  options: Partial<AuthClientOptions> = {},
): Promise<AuthClient> {
  const client = createAuthClient({
    baseUrl,
    mode,
    locks: null,
    channel: null,
    now: () => clock.now(),
    ...(mode === "cookie" ? { fetch: cookieJarFetch() } : {}),
    ...options,
  });
  await client.login(credentials);
  return client;
}

/** A fetch with a cookie jar, as a browser keeps the server's cookies. */
export function cookieJarFetch(): typeof fetch {
  const jar = new Map<string, string>();
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}
