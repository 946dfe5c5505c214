// What the API key tests of the adapter suite share (api-keys.ts, api-keys-ends.ts, and webhooks.ts
// for the refusals): an app with organizations and API keys on, a key made through the routes, a
// host call made with one, and the 403 of an auth route called with one.
import { crc32 } from "node:zlib";
import {
  type Auth,
  type AuthOptions,
  type Clock,
  createArgon2Hasher,
  createAuth,
  silentLogger,
} from "@portcullis/core";
import { expect, onTestFinished } from "vitest";
import { type CallInit, createHttpClient, type HttpClient, type HttpReply } from "../http-client.js";
import { APP_ORIGIN, type App, type Boot, expectError, PASSWORD, type StartedServer } from "./fixture.js";
import { as, bootOrganizations, type Member, stepUp } from "./organization-fixture.js";

/** Requests one key may make per minute in most tests: more than any of them makes. */
export const ROOMY_LIMIT = 100;

/** The app with organizations and API keys on (`apiKeys` in `overrides` replaces the suite's). */
export const bootApiKeys = (boot: Boot, overrides: Partial<AuthOptions> = {}) =>
  bootOrganizations(boot, { apiKeys: { requestsPerMinute: ROOMY_LIMIT }, ...overrides });

/** A key as `POST /api-keys` answered it: the key itself and its id. */
export interface CreatedKey {
  id: string;
  key: string;
  apiKey: Record<string, unknown>;
}

/** `who` makes a key (stepping up first) with `body`; checked to be 201. */
export async function createKey(
  app: App,
  who: Member,
  body: Record<string, unknown> = { name: "CI" },
): Promise<CreatedKey> {
  const reply = await as(app, who, `create key ${String(body.name)}`, "POST", "/api-keys", {
    body,
    headers: await stepUp(app, who),
  });
  expect(reply.status, reply.text).toBe(201);
  const apiKey = reply.body.apiKey as Record<string, unknown>;
  return { id: String(apiKey.id), key: String(reply.body.key), apiKey };
}

/**
 * `organizationId`'s key and `who`'s own, made by `who` in that order (own first): the
 * organization's reads projects only.
 */
export async function ownAndOrganizationKeys(
  app: App,
  who: Member,
  organizationId: string,
): Promise<{ own: CreatedKey; shared: CreatedKey }> {
  const own = await createKey(app, who);
  const shared = await createKey(app, who, { name: "Org", organizationId, permissions: ["project:read"] });
  return { own, shared };
}

/**
 * Signs `email` up through the plain `http` client (no transcript), logs in, steps up and makes a
 * key named `name`, checked to be 201: the key, its id and the access token.
 */
export async function registerWithKey(http: HttpClient, email: string, name: string) {
  await http.call("POST", "/api/auth/register", { body: { email, password: PASSWORD } });
  const login = await http.call("POST", "/api/auth/login", { body: { email, password: PASSWORD } });
  const bearer = String(login.body.accessToken);
  const stepUp = await http.call("POST", "/api/auth/step-up", { bearer, body: { password: PASSWORD } });
  const created = await http.call("POST", "/api/auth/api-keys", {
    bearer,
    headers: { "x-step-up-token": String(stepUp.body.stepUpToken) },
    body: { name },
  });
  expect(created.status, created.text).toBe(201);
  return { key: String(created.body.key), id: String((created.body.apiKey as { id: string }).id), bearer };
}

/** How a key travels: its own header, or as a bearer token. */
export type KeyHeader = "x-api-key" | "bearer";

/**
 * A host route with `key`: `GET /host/protected` (requireAuth) by default, or `/host/projects`
 * (requirePermission: GET project:read, POST project:write). Not in the transcript: the host's
 * framework writes its own answers.
 */
export function withKey(
  app: App,
  key: string,
  label: string,
  route: "protected" | "read projects" | "write projects" = "protected",
  via: KeyHeader = "x-api-key",
): Promise<HttpReply> {
  const [method, path] =
    route === "protected"
      ? ["GET", "/host/protected"]
      : route === "read projects"
        ? ["GET", "/host/projects"]
        : ["POST", "/host/projects"];
  return app.call(label, method, path, {
    record: false,
    ...(via === "bearer" ? { bearer: key } : { headers: { "x-api-key": key } }),
    ...(method === "POST" ? { body: {} } : {}),
  });
}

/** The ways `key` travels (see `KeyHeader`), as what a request adds: a bearer token, then its own header. */
export const sentWith = (key: string): CallInit[] => [{ bearer: key }, { headers: { "x-api-key": key } }];

/**
 * `method` `path` (with `body`, if any) under `/api/auth`, labelled `method path`, sent once with
 * each of `ways` in turn: each answered 403 API_KEY_NOT_ALLOWED.
 */
export async function expectKeyNotAllowed(
  app: App,
  [method, path, body]: readonly [string, string, unknown?],
  ways: CallInit[],
): Promise<void> {
  const init = body === undefined ? {} : { body };
  for (const way of ways)
    expectError(
      await app.api(method, path, { ...init, label: `${method} ${path}`, ...way }),
      403,
      "API_KEY_NOT_ALLOWED",
    );
}

/**
 * `who`'s keys (`organizationId`: the organization's), as `GET /api-keys` lists them, once the
 * background work (`lastUsedAt`) is done.
 */
export async function listKeys(app: App, who: Member, organizationId?: string) {
  await app.auth.idle();
  const query = organizationId === undefined ? "" : `?organizationId=${organizationId}`;
  const reply = await as(app, who, "list keys", "GET", `/api-keys${query}`);
  expect(reply.status, reply.text).toBe(200);
  return { reply, items: reply.body.items as Record<string, unknown>[] };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The 6-character base62 CRC-32 a key ends with, of its 43-character body. */
function checksum(body: string): string {
  let rest = BigInt(crc32(body));
  let text = "";
  while (rest > 0n) {
    text = BASE62[Number(rest % 62n)] + text;
    rest /= 62n;
  }
  return text.padStart(6, "0");
}

/** Another base62 character than `char`. */
const other = (char: string) => (char === "A" ? "B" : "A");

/**
 * `key` with the character at `index` (0-42, within the body after `pc_`) changed and the
 * checksum made right again: well-formed, so the store is asked. Within the first 12 it names
 * another (unknown) key; after them it is the same key's id with a wrong secret.
 */
export function rewritten(key: string, index: number): string {
  const body = key.slice(3, 46);
  const changed = body.slice(0, index) + other(body[index] ?? "") + body.slice(index + 1);
  return `pc_${changed}${checksum(changed)}`;
}

/** `key` with one character changed and the checksum left as it was: a typo. */
export function mistyped(key: string, index: number): string {
  return key.slice(0, index) + other(key[index] ?? "") + key.slice(index + 1);
}

/**
 * One instance of an app with API keys (`requestsPerMinute`) over `stores` on `clock` (cheap
 * argon2, no emails), served by `start` until the test ends; instances made with one call's
 * stores share the keys (one secret for all).
 */
export async function startKeyInstance(
  start: (auth: Auth) => Promise<StartedServer>,
  stores: AuthOptions["stores"],
  clock: Clock,
  requestsPerMinute: number,
): Promise<{ auth: Auth; http: HttpClient }> {
  const auth = createAuth({
    secret: "api-keys-instances-secret-Qm4vR8tY2wZ6pL0sD3fH7jK1nB5xC9gA",
    stores,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    clock,
    logger: silentLogger,
    appOrigin: APP_ORIGIN,
    mailer: { send: async () => undefined },
    email: { loginAlerts: false },
    apiKeys: { requestsPerMinute },
  });
  await auth.ready();
  const server = await start(auth);
  onTestFinished(async () => {
    await auth.idle();
    await server.close();
  });
  return { auth, http: createHttpClient(server.baseUrl) };
}
