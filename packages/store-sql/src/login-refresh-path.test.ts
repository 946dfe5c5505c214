import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { type Counting, countedSqlite } from "./test-databases.js";
import { countedHandler, countedPostgresForFile, registerThrough } from "./test-servers.js";

// Login and refresh on SQL stores through the core's HTTP handler: the statements each sends (so a
// reduction cannot silently regress), and the limits and the single-use rotation still holding
// under concurrent requests. The activity log is written beside the request (not awaited by it):
// its insert is left out of the counts. The audit log's append (the sign-in's two entries,
// login.succeeded and session.created, in one transaction, or on PostgreSQL one statement) is
// counted: the answer waits for it.

/** What each statement does, in the order sent: a short name per kind this file expects. */
function kinds(statements: string[]): string[] {
  const named: [RegExp, string][] = [
    [/^insert into "?portcullis_counters/i, "count attempt"],
    [
      /^with "hit" as \(insert into "portcullis_counters" .* from "hit" left join "portcullis_users" as "u" on "u"\."email" = \$\d+/i,
      "count attempt and read user by email",
    ],
    [/^select .* from "?portcullis_users"? where "?email/i, "user by email"],
    [
      /^with "before" as \(select \* from "portcullis_users" where "id" = \$1 for update\), "recorded" as \(update "portcullis_users" .*insert into "?portcullis_access_tokens.*insert into "?portcullis_sessions.*delete from "?portcullis_counters.*delete from "?portcullis_cooldowns/i,
      "check, record sign-in, allow jti, create session and clear throttle",
    ],
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
    [/^start transaction/i, "begin"],
    [/^commit/i, "commit"],
    [
      /^with moved as \( update "?portcullis_audit_heads.*insert into "?portcullis_audit_log/i,
      "audit: append if unmoved",
    ],
    [/^select .* from "?portcullis_audit_heads/i, "audit: lock heads"],
    [/^insert into "?portcullis_audit_log/i, "audit: entries"],
    [/^insert into "?portcullis_audit_heads/i, "audit: move heads"],
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
    const app = countedHandler(open, "login-refresh-path-secret-yAEoUyHUyQNxa_NIrlTvpITTjF", {
      loginThrottle: { freeAttempts: 5 },
    });
    const { send } = app;

    /** `run`'s answer and the kinds of the statements it sent. */
    const counting = async <T>(run: () => Promise<T>) => {
      const { answer, statements } = await app.count(run);
      return { answer, statements: kinds(statements) };
    };

    /** A new account (not signed in yet): its credentials. */
    const registered = () => registerThrough(app.handler, "path");

    it("login - the statements of a first and of a later sign-in", async () => {
      const credentials = await registered();
      const first = await counting(() => send("POST", "/login", { body: credentials }));
      expect(first.answer.status).toBe(200);
      expect(first.statements).toEqual(expected.login);
      const later = await counting(() => send("POST", "/login", { body: credentials }));
      expect(later.answer.status).toBe(200);
      expect(later.statements).toEqual(expected.laterLogin);
      const [row] = (
        await sql<{
          last_sign_in_at: unknown;
        }>`select last_sign_in_at from portcullis_users where email = ${credentials.email}`.execute(app.db)
      ).rows;
      expect(Number(row?.last_sign_in_at)).toBeGreaterThan(0);
    });

    it("refresh - six statements: the session read, the new jti allowed and the old revoked, the rotation's read and conditional update, the user", async () => {
      const credentials = await registered();
      const login = await send("POST", "/login", { body: credentials });
      const refreshed = await counting(() => send("POST", "/refresh", { token: login.body.refreshToken }));
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
      await sql`delete from portcullis_cooldowns where id like ${"%lock%"}`.execute(app.db);
      await sql`update portcullis_counters set hits = 0 where id like ${"%password%"}`.execute(app.db);
      expect((await send("POST", "/login", { body: credentials })).status).toBe(200);
      const left = await sql<{
        id: string;
      }>`select id from portcullis_counters where id like ${`%${credentials.email}%`}`.execute(app.db);
      expect(left.rows).toEqual([]);
    });
  });
}

const PG_LOGIN = [
  // The address's counter and the account, one statement (a data-modifying WITH).
  "count attempt and read user by email",
  // The new session, its access token's allowlist entry, the re-read that closes the window
  // between the check and the session with last_sign_in_at, and the address's throttle cleared:
  // one statement (a data-modifying WITH that locks the user's row).
  "check, record sign-in, allow jti, create session and clear throttle",
];
/** The audit log's append of a turn's entries on SQLite: a transaction that locks the chains' heads. */
const AUDIT_APPEND = ["audit: lock heads", "audit: entries", "audit: move heads"];
/** A sign-in on SQLite: no data-modifying WITH there, so separate statements. */
const SQLITE_SIGN_IN = [
  "count attempt",
  "user by email",
  "clear counter",
  "clear locks",
  "allow jti",
  "create session",
  "user by id",
  "record sign-in",
];
suite(
  "sqlite",
  {
    // The first sign-in is the second of two conditional updates.
    login: [...SQLITE_SIGN_IN, "record sign-in", ...AUDIT_APPEND],
    laterLogin: [...SQLITE_SIGN_IN, ...AUDIT_APPEND],
  },
  async () => countedSqlite(),
);

// The registration's append locked the heads; the store then knows the deployment's head, so a
// sign-in's entries (no organization) go in one statement that moves it only if no one else did.
const PG_LOGIN_AUDITED = [...PG_LOGIN, "audit: append if unmoved"];
suite("postgres", { login: PG_LOGIN_AUDITED, laterLogin: PG_LOGIN_AUDITED }, countedPostgresForFile());
