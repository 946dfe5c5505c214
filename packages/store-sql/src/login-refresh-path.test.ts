import { createArgon2Hasher, createAuth, httpHandlerFor, silentLogger } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { Kysely, sql } from "kysely";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { counted, countedPostgres, type SendOptions, sendTo } from "./test-databases.js";

// Login and refresh on SQL stores through the core's HTTP handler: the statements each sends (so a
// reduction cannot silently regress), and the limits and the single-use rotation still holding
// under concurrent requests. The activity log is written beside the request (not awaited by it):
// its insert is left out of the counts.

type Counting = { on: boolean; statements: string[] };

/** What each statement does, in the order sent: a short name per kind this file expects. */
function kinds(statements: string[]): string[] {
  const named: [RegExp, string][] = [
    [/^insert into "?portcullis_counters/i, "count attempt"],
    [/^select .* from "?portcullis_users"? where "?email/i, "user by email"],
    [/^with .*delete from "?portcullis_counters.*delete from "?portcullis_cooldowns/i, "clear throttle"],
    [/^delete from "?portcullis_counters/i, "clear counter"],
    [/^delete from "?portcullis_cooldowns/i, "clear locks"],
    [
      /^with .*insert into "?portcullis_access_tokens.*insert into "?portcullis_sessions/i,
      "allow jti and create session",
    ],
    [/^insert into "?portcullis_access_tokens/i, "allow jti"],
    [/^delete from "?portcullis_access_tokens/i, "revoke jti"],
    [/^insert into "?portcullis_sessions/i, "create session"],
    [/^select .* from "?portcullis_sessions/i, "read session"],
    [/^update "?portcullis_sessions/i, "rotate session"],
    [/^select .* from "?portcullis_users"? where "?id/i, "user by id"],
    [
      /^update "?portcullis_users"? as u set last_sign_in_at = case .* returning before\.\*/is,
      "check and record sign-in",
    ],
    [/^update "?portcullis_users.*last_sign_in_at/is, "record sign-in"],
  ];
  return statements
    .map((text) => text.replace(/\s+/g, " ").trim())
    .filter((text) => !/portcullis_activity/i.test(text))
    .map((text) => named.find(([pattern]) => pattern.test(text))?.[1] ?? text);
}

function suite(
  name: string,
  expected: { login: string[]; laterLogin: string[] },
  open: () => Promise<{ db: AnyKysely; counting: Counting }>,
) {
  describe(`login and refresh on ${name}`, () => {
    let db: AnyKysely;
    let counting: Counting;
    let handler: ReturnType<typeof httpHandlerFor>;
    let n = 0;
    beforeAll(async () => {
      ({ db, counting } = await open());
      const stores = createSqlStores({ db, clock: createFakeClock() });
      await stores.migrate();
      const auth = createAuth({
        secret: "login-refresh-path-secret-yAEoUyHUyQNxa_NIrlTvpITTjF",
        stores,
        logger: silentLogger,
        appOrigin: "http://localhost:3000",
        allowHeaderAuthentication: true,
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
        email: { enabled: false },
        loginThrottle: { freeAttempts: 5 },
      });
      handler = httpHandlerFor(auth);
    }, 60_000);

    const send = (method: string, path: string, options: SendOptions = {}) =>
      sendTo(handler, method, path, options);

    /** `run`'s answer and the kinds of the statements it sent. */
    const counting_ = async <T>(run: () => Promise<T>) => {
      counting.statements = [];
      counting.on = true;
      try {
        const answer = await run();
        return { answer, statements: kinds(counting.statements) };
      } finally {
        counting.on = false;
      }
    };

    /** A new account (not signed in yet): its credentials. */
    const registered = async () => {
      n += 1;
      const credentials = {
        email: `path${n}-${Date.now()}@example.test`,
        password: "correct horse battery staple",
      };
      expect((await send("POST", "/register", { body: credentials })).status).toBeLessThan(300);
      return credentials;
    };

    it("login - the statements of a first and of a later sign-in", async () => {
      const credentials = await registered();
      const first = await counting_(() => send("POST", "/login", { body: credentials }));
      expect(first.answer.status).toBe(200);
      expect(first.statements).toEqual(expected.login);
      const later = await counting_(() => send("POST", "/login", { body: credentials }));
      expect(later.answer.status).toBe(200);
      expect(later.statements).toEqual(expected.laterLogin);
      const [row] = (
        await sql<{
          last_sign_in_at: unknown;
        }>`select last_sign_in_at from portcullis_users where email = ${credentials.email}`.execute(db)
      ).rows;
      expect(Number(row?.last_sign_in_at)).toBeGreaterThan(0);
    });

    it("refresh - six statements: the session read, the new jti allowed and the old revoked, the rotation's read and conditional update, the user", async () => {
      const credentials = await registered();
      const login = await send("POST", "/login", { body: credentials });
      const refreshed = await counting_(() => send("POST", "/refresh", { token: login.body.refreshToken }));
      expect(refreshed.answer.status).toBe(200);
      expect(refreshed.statements).toEqual([
        "read session",
        "allow jti",
        "revoke jti",
        "read session",
        "rotate session",
        "user by id",
      ]);
      expect((await send("GET", "/me", { token: refreshed.answer.body.accessToken })).status).toBe(200);
      expect((await send("GET", "/me", { token: login.body.accessToken })).status).toBe(401);
    });

    it("refresh - 10 concurrent refreshes with one token: one rotation, every answer the same new refresh token", async () => {
      const credentials = await registered();
      const login = await send("POST", "/login", { body: credentials });
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => send("POST", "/refresh", { token: login.body.refreshToken })),
      );
      // Within the reuse interval the losers get the winner's token (two tabs); none rotates again.
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
      const tokens = new Set(answers.map((answer) => answer.body.refreshToken as string));
      expect(tokens.size).toBe(1);
      const [token] = [...tokens];
      const next = await send("POST", "/refresh", { token });
      expect(next.status).toBe(200);
      // The first token is now two rotations back: reuse, and the session ends.
      expect((await send("POST", "/refresh", { token: login.body.refreshToken })).status).toBe(401);
      expect((await send("POST", "/refresh", { token: next.body.refreshToken })).status).toBe(401);
    });

    it("login - 20 concurrent wrong passwords check no more than the budget; then the right one clears the throttle", async () => {
      const credentials = await registered();
      const wrong = await Promise.all(
        Array.from({ length: 20 }, () =>
          send("POST", "/login", { body: { ...credentials, password: "wrong password here" } }),
        ),
      );
      const statuses = wrong.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401)).toHaveLength(5);
      expect(statuses.filter((status) => status === 429)).toHaveLength(15);
      await sql`delete from portcullis_cooldowns where id like ${"%lock%"}`.execute(db);
      await sql`update portcullis_counters set hits = 0 where id like ${"%password%"}`.execute(db);
      expect((await send("POST", "/login", { body: credentials })).status).toBe(200);
      const left = await sql<{
        id: string;
      }>`select id from portcullis_counters where id like ${`%${credentials.email}%`}`.execute(db);
      expect(left.rows).toEqual([]);
    });
  });
}

const PG_LOGIN = [
  "count attempt",
  "user by email",
  "clear throttle",
  // The new session and its access token's allowlist entry, one statement (a data-modifying WITH).
  "allow jti and create session",
  // The re-read that closes the window between the check and the session, and last_sign_in_at.
  "check and record sign-in",
];
suite(
  "sqlite",
  {
    // No data-modifying WITH in SQLite, and its first sign-in is the second of two conditional updates.
    login: [
      "count attempt",
      "user by email",
      "clear counter",
      "clear locks",
      "allow jti",
      "create session",
      "user by id",
      "record sign-in",
      "record sign-in",
    ],
    laterLogin: [
      "count attempt",
      "user by email",
      "clear counter",
      "clear locks",
      "allow jti",
      "create session",
      "user by id",
      "record sign-in",
    ],
  },
  async () =>
    counted(
      (log) =>
        new Kysely({
          dialect: createSqliteDialect({ database: new Database(":memory:") }),
          log,
        }) as AnyKysely,
    ),
);

let postgres: Awaited<ReturnType<typeof countedPostgres>> | undefined;
suite("postgres", { login: PG_LOGIN, laterLogin: PG_LOGIN }, async () => {
  postgres = await countedPostgres();
  return postgres;
});
afterAll(() => postgres?.close(), 60_000);
