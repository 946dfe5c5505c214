// The set-up and checks that adapters' own tests of their route guards share (Express's
// `requireAuth`, Fastify's `withAuth`): an account signed in, host servers closed after each test,
// and a guarded route that must run its handler for the account and never without it.
import { type Auth, type AuthStores, createArgon2Hasher, createAuth } from "@portcullis/core";
import { afterEach, expect } from "vitest";
import type { StartedServer } from "./adapter-suite/fixture.js";

/** The account of the guard tests. */
export const GUARD_TEST_ACCOUNT = { email: "ada@example.test", password: "correct horse battery staple" };

/** An auth on `stores` for an adapter's own tests (no email, Argon2 at its cheapest) with `account` registered. */
export async function authWithAccount(
  secret: string,
  stores: AuthStores,
  account: { email: string; password: string } = GUARD_TEST_ACCOUNT,
): Promise<Auth> {
  const auth = createAuth({
    secret,
    stores,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, account);
  return auth;
}

/** GET `path` on a started host server, with `token` as the bearer token when given. */
export type GuardedGet = (path: string, token?: string) => Promise<Response>;

/**
 * For a file of guard tests (registers an `afterEach` that closes the host servers its tests
 * started): `signIn` makes an auth on `stores` (`authWithAccount`) with `GUARD_TEST_ACCOUNT`
 * signed in, and answers the account's access token and user id; `serve` keeps a started host
 * server for closing and answers its `GuardedGet`.
 */
export function guardTestFixture() {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });
  return {
    async signIn(secret: string, stores: AuthStores) {
      const auth = await authWithAccount(secret, stores);
      const login = await auth.login({}, GUARD_TEST_ACCOUNT);
      if (login.twoFactorRequired) throw new Error("unexpected 2FA");
      return { auth, accessToken: login.accessToken, userId: login.user.id };
    },
    serve(server: StartedServer): GuardedGet {
      closing.push(server.close);
      return (path, token) =>
        fetch(`${server.baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    },
  };
}

/** A 401 whose code is `AUTHENTICATION_REQUIRED`. */
export async function expectAuthenticationRequired(reply: Response): Promise<void> {
  expect(reply.status).toBe(401);
  expect(((await reply.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
}

/**
 * A host app's guarded `GET /notes/:noteId`, whose handler answers `{ userId, noteId }` from the
 * principal and pushes the note id to `ran`; `accessToken` is `userId`'s.
 */
export interface GuardedNotes {
  get: GuardedGet;
  ran: string[];
  accessToken: string;
  userId: string;
}

/** `/notes/n1` with the account's token: 200, the handler ran (once) with the account's principal. */
export async function expectNoteServed({ get, ran, accessToken, userId }: GuardedNotes): Promise<void> {
  const reply = await get("/notes/n1", accessToken);
  expect(reply.status).toBe(200);
  expect(await reply.json()).toEqual({ userId, noteId: "n1" });
  expect(ran).toEqual(["n1"]);
}

/**
 * `/notes/n1` signed out: 401 AUTHENTICATION_REQUIRED; with each of `badTokens`: 401; and the
 * handler never ran.
 */
export async function expectNoteRefused({ get, ran }: GuardedNotes, badTokens: string[] = []): Promise<void> {
  await expectAuthenticationRequired(await get("/notes/n1"));
  for (const token of badTokens) expect((await get("/notes/n1", token)).status).toBe(401);
  expect(ran).toEqual([]);
}
