import type { UserRecord } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "./migrations.js";
import { discardTimedOutConnections, postgresPoolOptions } from "./postgres-pool.js";
import { type PreparedStatementOptions, preparePostgresStatements } from "./postgres-prepared.js";
import { createSqlStores } from "./sql-stores.js";
import { postgresSchema, usePostgres } from "./test-databases.js";

// Named prepared statements on a real PostgreSQL: one connection per pool, so what the test reads
// from pg_prepared_statements is the session that ran the statements.
let server: Awaited<ReturnType<typeof usePostgres>>;
beforeAll(async () => {
  server = await usePostgres();
}, 60_000);
afterAll(() => server?.stop());

const SELECT = "select id, n from prep_items where id = $1";

async function onePool(options?: PreparedStatementOptions | false) {
  const pool = new pg.Pool({ connectionString: server.url, max: 1, ...postgresPoolOptions() });
  pool.on("error", () => {});
  if (options !== false) preparePostgresStatements(pool, options);
  await pool.query("create temp table prep_items (id text primary key, n int)");
  await pool.query("insert into prep_items values ('a', 1), ('b', 2)");
  const prepared = async () =>
    (await pool.query("select statement from pg_prepared_statements order by statement")).rows.map(
      (row: { statement: string }) => row.statement,
    );
  return { pool, prepared };
}

describe("preparePostgresStatements", () => {
  it("preparePostgresStatements - a parameterized statement is prepared from its second use, once per connection, with the same rows", async () => {
    const plain = await onePool(false);
    const named = await onePool();
    try {
      const rows: unknown[] = [];
      for (const id of ["a", "b", "a", "missing"]) rows.push((await named.pool.query(SELECT, [id])).rows);
      for (const [i, id] of ["a", "b", "a", "missing"].entries())
        expect((await plain.pool.query(SELECT, [id])).rows).toEqual(rows[i]);
      expect(rows[0]).toEqual([{ id: "a", n: 1 }]);
      expect(await named.prepared()).toEqual([SELECT]);
      expect(await plain.prepared()).toEqual([]);
      // Statements without parameters stay unnamed (they may hold several statements).
      await named.pool.query("select 1");
      await named.pool.query("select 1");
      expect(await named.prepared()).toEqual([SELECT]);
    } finally {
      await plain.pool.end();
      await named.pool.end();
    }
  });

  it("preparePostgresStatements - at most maxPerConnection statements per connection; the others run unnamed", async () => {
    const { pool, prepared } = await onePool({ maxPerConnection: 2, minUses: 1 });
    try {
      for (const column of ["id", "n", "id, n", "n, id"])
        for (const id of ["a", "b"])
          expect((await pool.query(`select ${column} from prep_items where id = $1`, [id])).rowCount).toBe(1);
      expect(await prepared()).toEqual([
        "select id from prep_items where id = $1",
        "select n from prep_items where id = $1",
      ]);
    } finally {
      await pool.end();
    }
  });

  it("preparePostgresStatements - a table changed under a prepared statement: the next call answers the new columns, outside a transaction at once", async () => {
    const { pool, prepared } = await onePool({ minUses: 1 });
    const all = "select * from prep_items where id = $1";
    try {
      expect((await pool.query(all, ["a"])).rows).toEqual([{ id: "a", n: 1 }]);
      await pool.query("alter table prep_items add column extra text default 'x'");
      // PostgreSQL answers "cached plan must not change result type": sent again, unnamed.
      expect((await pool.query(all, ["a"])).rows).toEqual([{ id: "a", n: 1, extra: "x" }]);
      expect((await pool.query(all, ["b"])).rows).toEqual([{ id: "b", n: 2, extra: "x" }]);
      expect(await prepared()).toEqual([all]);
      // Inside a transaction the error aborts it; once rolled back, the statement works again.
      await pool.query("alter table prep_items drop column extra");
      const client = await pool.connect();
      try {
        await client.query("begin");
        await expect(client.query(all, ["a"])).rejects.toMatchObject({ code: "0A000" });
        await client.query("rollback");
        expect((await client.query(all, ["a"])).rows).toEqual([{ id: "a", n: 1 }]);
        await client.query("begin");
        expect((await client.query(all, ["b"])).rows).toEqual([{ id: "b", n: 2 }]);
        await client.query("commit");
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });

  it("preparePostgresStatements - statements the host deallocated (DEALLOCATE ALL, DISCARD ALL) are prepared again", async () => {
    const { pool, prepared } = await onePool({ minUses: 1 });
    try {
      await pool.query(SELECT, ["a"]);
      await pool.query("deallocate all");
      expect(await prepared()).toEqual([]);
      expect((await pool.query(SELECT, ["a"])).rows).toEqual([{ id: "a", n: 1 }]);
      expect(await prepared()).toEqual([SELECT]);
      // Sent as a query config, which the wrapper does not read: PostgreSQL's "does not exist", then unnamed.
      await pool.query({ text: "deallocate all" });
      expect((await pool.query(SELECT, ["b"])).rows).toEqual([{ id: "b", n: 2 }]);
      expect((await pool.query(SELECT, ["a"])).rows).toEqual([{ id: "a", n: 1 }]);
      expect(await prepared()).toEqual([SELECT]);
    } finally {
      await pool.end();
    }
  });

  it("preparePostgresStatements - a connection the server dropped fails its statement; the pool's next connection prepares anew", async () => {
    const pool = discardTimedOutConnections(
      new pg.Pool({ connectionString: server.url, max: 1, ...postgresPoolOptions() }),
    );
    pool.on("error", () => {});
    try {
      const text = "select $1::int + 1 as n";
      for (const n of [1, 2]) expect((await pool.query(text, [n])).rows).toEqual([{ n: n + 1 }]);
      const client = await pool.connect();
      const { rows } = await client.query("select pg_backend_pid() as pid");
      const killer = new pg.Client({ connectionString: server.url });
      await killer.connect();
      await killer.query("select pg_terminate_backend($1)", [rows[0].pid]);
      await killer.end();
      await expect(client.query(text, [3])).rejects.toThrow();
      client.release(true);
      expect((await pool.query(text, [4])).rows).toEqual([{ n: 5 }]);
      expect((await pool.query(text, [5])).rows).toEqual([{ n: 6 }]);
      const { rows: statements } = await pool.query("select statement from pg_prepared_statements");
      expect(statements).toEqual([{ statement: text }]);
    } finally {
      await pool.end();
    }
  }, 15_000);

  it("discardTimedOutConnections - prepares the stores' statements unless preparedStatements is false; 20 concurrent joint reads answer alike", async () => {
    for (const preparedStatements of [true, false]) {
      const schema = await postgresSchema(server.url);
      await migrate(schema.db);
      const url = server.url;
      const pool = discardTimedOutConnections(
        new pg.Pool({
          connectionString: url,
          max: 3,
          options: `-c search_path=${await searchPath(schema.db as Kysely<unknown>)}`,
        }),
        { preparedStatements },
      );
      pool.on("error", () => {});
      const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
      try {
        const stores = createSqlStores({ db, clock: createFakeClock() });
        const user: UserRecord = {
          id: "prep-user",
          email: "prep@example.test",
          emailVerified: true,
          name: "Ada",
          passwordHash: null,
          identityProviders: [],
          twoFactor: {
            methods: [],
            preferredMethod: null,
            totpSecretEncrypted: null,
            recoveryCodeHashes: [],
          },
          createdAt: 1_700_000_000_000,
        };
        expect(await stores.users.create(user)).not.toBeNull();
        await stores.allowlist.allowAccessToken("jti-1", { userId: user.id, sessionId: "s1" }, 60_000);
        const reads = await Promise.all(
          Array.from({ length: 20 }, () => stores.joint.findAllowedAccessTokenWithUser?.("jti-1")),
        );
        for (const read of reads) expect(read).toEqual({ entry: { userId: user.id, sessionId: "s1" }, user });
        // Concurrent reads of one turn are one batched statement: read a few times one after
        // another too, so the one-token read is used more than once on a connection.
        for (let i = 0; i < 3; i += 1)
          expect(await stores.joint.findAllowedAccessTokenWithUser?.("jti-1")).toEqual(reads[0]);
        const { rows } = await pool.query("select statement from pg_prepared_statements");
        const joint = rows.filter((row: { statement: string }) => row.statement.includes("left join"));
        if (preparedStatements) expect(joint).toHaveLength(1);
        else expect(rows).toEqual([]);
      } finally {
        await db.destroy();
        await schema.drop();
      }
    }
  }, 30_000);
});

async function searchPath(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? "public";
}
