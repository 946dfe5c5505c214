import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TOKEN_CLAIM_LEASE_MS } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { Kysely } from "kysely";
import Database from "libsql";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { canStartPostgres, postgresDb, startPostgresServer } from "./test-databases.js";
import {
  authWithResetSteps,
  NEW_PASSWORD,
  type ResetStep,
  resetState,
  resettingUsers,
} from "./test-reset.js";

// The half-written reset of issue 34 on a PostgreSQL server of the test's own: a table the reset
// writes is locked (ACCESS EXCLUSIVE, from another connection) while the reset hashes, the
// reset's statement blocks on it and is cancelled with pg_cancel_backend (what a statement
// timeout or a failover does). The reset answers DATABASE_FAILURE, and the stores hold either the
// old password with a working link or the new password with no session from before it.

const SECRET = "reset-faults-secret-mN3vQ8tZr1XcW5bK0yLp7HdJ2sAe9FgUoIi4Ek6TwqY";

describe.skipIf(!canStartPostgres)("resetPassword on PostgreSQL: a blocked statement cancelled", () => {
  let server: Awaited<ReturnType<typeof startPostgresServer>>;
  let admin: pg.Client;
  beforeAll(async () => {
    server = await startPostgresServer();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.destroy();
  });

  /** Cancels the first statement that waits for a lock (within 5 s); its pid. */
  async function cancelBlocked(lockerPid: number): Promise<number> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const { rows } = await admin.query<{ pid: number }>(
        "select pid from pg_stat_activity where wait_event_type = 'Lock' and backend_type = 'client backend' and pid <> $1",
        [lockerPid],
      );
      const pid = rows[0]?.pid;
      if (pid !== undefined) {
        await admin.query("select pg_cancel_backend($1)", [pid]);
        return pid;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("no statement blocked on the lock");
  }

  it.each([
    ["sessions", "old"],
    ["users", "old"],
    ["tokens", "new"],
  ] as const)(
    "resetPassword - %s table locked mid-reset, the blocked statement cancelled: the %s password, never a mix",
    async (table, expected) => {
      const prefix = `r${randomBytes(5).toString("hex")}_`;
      const db = postgresDb(server.url);
      const stores = createSqlStores({ db, tablePrefix: prefix });
      await stores.migrate();
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      let lockDuringHash = false;
      const { auth, hasher, sent } = authWithResetSteps({
        secret: SECRET,
        stores: stores,
        async at(step) {
          if (step !== "hash" || !lockDuringHash) return;
          lockDuringHash = false;
          await locker.query("begin");
          await locker.query(`lock table ${prefix}${table} in access exclusive mode`);
        },
      });
      try {
        const [user] = await resettingUsers(auth, sent, 1, `pg-${table}`);
        if (!user) throw new Error("no user");
        lockDuringHash = true;
        const answer = auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }).then(
          () => "OK",
          (error: { code?: string }) => error.code,
        );
        const lockerPid = (locker as unknown as { processID: number }).processID;
        await cancelBlocked(lockerPid);
        await locker.query("commit");
        expect(await answer).toBe("DATABASE_FAILURE");
        expect(await resetState(auth, stores.users, hasher, user)).toBe(expected);
      } finally {
        await locker.end();
        await db.destroy();
      }
    },
  );
});

// The same on SQLite: another connection holds the write lock (BEGIN IMMEDIATE) from a step of the
// reset on, so the reset's next write waits out the busy timeout and fails (SQLITE_BUSY).
describe("resetPassword on SQLite: the database locked by another connection", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-reset-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ["while the password is hashed (before the sessions end)", "old", "hash"],
    ["right after the new password is saved", "new", "update"],
  ] as const)(
    "resetPassword - SQLite locked %s: DATABASE_FAILURE, then the %s password, never a mix",
    async (_, expected, at) => {
      const file = join(dir, `${at}.db`);
      // The package's dialect: with Kysely's own, libsql leaves a statement that failed busy in
      // progress, and the next COMMIT on the connection (the audit log's append) fails and rolls
      // back what ran since (sqlite-dialect.ts).
      const db = new Kysely({
        dialect: createSqliteDialect({ database: new Database(file), busyTimeoutMs: 200 }),
      });
      const locker = new Database(file, { timeout: 200 });
      const clock = createFakeClock({ start: Date.now() });
      const stores = createSqlStores({ db, clock });
      await stores.migrate();
      let lockAt: ResetStep | null = null;
      const { auth, users, hasher, sent } = authWithResetSteps({
        secret: SECRET,
        stores: stores,
        clock,
        at(step) {
          if (lockAt !== step) return;
          lockAt = null;
          locker.exec("begin immediate");
        },
      });
      try {
        const [user] = await resettingUsers(auth, sent, 1, `sqlite-${at}`);
        if (!user) throw new Error("no user");
        lockAt = at;
        const answer = await auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }).then(
          () => "OK",
          (error: { code?: string }) => error.code,
        );
        locker.exec("commit");
        expect(answer).toBe("DATABASE_FAILURE");
        // The release failed on the lock too: the claim ends with its lease.
        clock.advance(TOKEN_CLAIM_LEASE_MS + 1_000);
        expect(await resetState(auth, users, hasher, user)).toBe(expected);
      } finally {
        locker.close();
        await db.destroy();
      }
    },
  );
});
