import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  discardTimedOutConnections,
  POSTGRES_PROBE_INTERVAL_MS,
  PostgresNotAnsweringError,
  postgresPoolOptions,
  setPostgresSessionTimeouts,
} from "./postgres-pool.js";
import { usePostgres } from "./test-databases.js";

// The recommended pool settings on a real server: the timeouts reach each session, and a
// connection whose query hit the client-side timeout leaves the pool instead of going back busy.
let server: Awaited<ReturnType<typeof usePostgres>>;
beforeAll(async () => {
  server = await usePostgres();
}, 60_000);
afterAll(() => server?.stop());

describe("postgresPoolOptions", () => {
  it("postgresPoolOptions - sets the server's statement, lock and idle-in-transaction timeouts on every connection", async () => {
    const pool = new pg.Pool({
      connectionString: server.url,
      ...postgresPoolOptions({ lockTimeoutMs: 800 }),
    });
    try {
      const show = async (name: string) => (await pool.query(`show ${name}`)).rows[0][name];
      expect(await show("statement_timeout")).toBe("1s");
      expect(await show("lock_timeout")).toBe("800ms");
      expect(await show("idle_in_transaction_session_timeout")).toBe("10s");
      await expect(pool.query("select pg_sleep(2)")).rejects.toMatchObject({ code: "57014" });
    } finally {
      await pool.end();
    }
  }, 15_000);

  it("postgresPoolOptions - the client's query timeout fires only after the server's statement timeout", () => {
    const options = postgresPoolOptions({ statementTimeoutMs: 3_000 });
    expect(options.query_timeout).toBeGreaterThan(options.statement_timeout);
    expect(() => postgresPoolOptions({ statementTimeoutMs: 1_000, lockTimeoutMs: 2_000 })).toThrow(
      RangeError,
    );
    expect(() => postgresPoolOptions({ statementTimeoutMs: 0 })).toThrow(RangeError);
  });
});

describe("discardTimedOutConnections", () => {
  for (const discard of [true, false]) {
    it(`discardTimedOutConnections - ${discard ? "a timed-out connection is closed: the next query succeeds" : "without it, the connection goes back busy: the next query times out behind the old one"}`, async () => {
      // One connection, and a client-side timeout shorter than the statement: a server that stops answering.
      const created = new pg.Pool({
        connectionString: server.url,
        max: 1,
        ...postgresPoolOptions(),
        query_timeout: 300,
      });
      const pool = discard ? discardTimedOutConnections(created) : created;
      pool.on("error", () => {});
      // Through Kysely, as the stores run: it checks a connection out and releases it without an error.
      const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
      try {
        await expect(sql`select pg_sleep(2)`.execute(db)).rejects.toThrow("Query read timeout");
        if (discard) {
          // The server did not answer in time: the next call fails at once; the pool's own probe
          // (every 250 ms) finds it answering again, and calls go through.
          const started = Date.now();
          await expect(sql`select 1 as one`.execute(db)).rejects.toThrow(PostgresNotAnsweringError);
          expect(Date.now() - started).toBeLessThan(50);
          await expect
            .poll(
              () =>
                sql`select 1 as one`.execute(db).then(
                  () => "answered",
                  (error: Error) => error.name,
                ),
              {
                timeout: 2_000,
                interval: POSTGRES_PROBE_INTERVAL_MS / 5,
              },
            )
            .toBe("answered");
        }
        // The abandoned statement still runs on the connection for ~1 s: a query queued behind it times out too.
        const next = sql<{ one: number }>`select 1 as one`.execute(db);
        if (discard) expect((await next).rows).toEqual([{ one: 1 }]);
        else await expect(next).rejects.toThrow("Query read timeout");
      } finally {
        await db.destroy().catch(() => {});
      }
    }, 15_000);
  }

  it("discardTimedOutConnections - a checked-out connection that the server drops between two statements fails the next statement, not the process", async () => {
    const pool = discardTimedOutConnections(
      new pg.Pool({ connectionString: server.url, max: 1, ...postgresPoolOptions() }),
    );
    pool.on("error", () => {});
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const client = await pool.connect();
    try {
      const { rows } = await client.query("select pg_backend_pid() as pid");
      const ended = new Promise((resolve) => client.once("end", resolve));
      const killer = new pg.Client({ connectionString: server.url });
      await killer.connect();
      await killer.query("select pg_terminate_backend($1)", [rows[0].pid]);
      await killer.end();
      await ended;
      await expect(client.query("select 1")).rejects.toThrow();
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
      client.release(true);
      await pool.end();
    }
  }, 15_000);

  it("setPostgresSessionTimeouts - raises the session's server and client timeouts together, then puts the pool's back", async () => {
    const pool = discardTimedOutConnections(
      new pg.Pool({ connectionString: server.url, max: 1, ...postgresPoolOptions() }),
    );
    pool.on("error", () => {});
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    const sleep = (on: typeof db) =>
      sql`select pg_sleep(1.5)`.execute(on).then(
        () => "OK",
        (error: { code?: string; message?: string }) => error.code ?? error.message,
      );
    try {
      await db.connection().execute(async (connection) => {
        // The pool's: the server cancels at 1 s.
        expect(await sleep(connection)).toBe("57014");
        await setPostgresSessionTimeouts(connection, 3_000);
        const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(connection);
        expect(shown.rows[0]?.statement_timeout).toBe("3s");
        // Neither the server (3 s) nor the client (3.25 s) gives up on a 1.5 s statement.
        expect(await sleep(connection)).toBe("OK");
        await setPostgresSessionTimeouts(connection, undefined);
        expect(await sleep(connection)).toBe("57014");
      });
      // The one connection, back in the pool with the pool's timeouts.
      expect(await sleep(db)).toBe("57014");
    } finally {
      await db.destroy();
    }
  }, 20_000);
});
