import { randomBytes } from "node:crypto";
import { createArgon2Hasher, createAuth, type EmailMessage, silentLogger } from "@portcullis/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlStores } from "./sql-stores.js";
import { canStartPostgres, postgresDb, startPostgresServer } from "./test-databases.js";
import { NEW_PASSWORD, resetState, resettingUsers } from "./test-reset.js";

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
      const real = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      let lockDuringHash = false;
      const sent: EmailMessage[] = [];
      const auth = createAuth({
        secret: SECRET,
        stores: { users: stores.users, sessions: stores.sessions, cooldowns: stores.cooldowns },
        appOrigin: "https://app.example.test",
        logger: silentLogger,
        mailer: { send: async (message) => void sent.push(message) },
        email: { enabled: true, loginAlerts: false },
        passwordHasher: {
          ...real,
          async hash(password) {
            if (lockDuringHash) {
              lockDuringHash = false;
              await locker.query("begin");
              await locker.query(`lock table ${prefix}${table} in access exclusive mode`);
            }
            return real.hash(password);
          },
        },
      });
      try {
        const [user] = await resettingUsers(auth, sent, 1, `pg-${table}`);
        if (!user) throw new Error("no user");
        lockDuringHash = true;
        const answer = auth.resetPassword(user.token, { newPassword: NEW_PASSWORD }).then(
          () => "OK",
          (error: { code?: string }) => error.code,
        );
        const lockerPid = (locker as unknown as { processID: number }).processID;
        await cancelBlocked(lockerPid);
        await locker.query("commit");
        expect(await answer).toBe("DATABASE_FAILURE");
        expect(await resetState(auth, stores.users, real, user)).toBe(expected);
      } finally {
        await locker.end();
        await db.destroy();
      }
    },
  );
});
