import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { postgresDatabase, usePostgres } from "./test-databases.js";

let server: Awaited<ReturnType<typeof usePostgres>> | undefined;
let database: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
beforeAll(async () => {
  server = await usePostgres();
  database = await postgresDatabase(server.url);
});
afterAll(async () => {
  await database?.drop();
  await server?.stop();
});

/**
 * A Kysely on a database of this file's own whose first `times` reads of PostgreSQL's catalog of
 * columns (Kysely's `introspection.getTables`) fail as they do when a table or schema is dropped
 * during that read, by anyone ("relation … does not exist", 42P01).
 */
function droppedDuringIntrospection(times: number): { db: AnyKysely; failed(): number } {
  if (!database) throw new Error("the database is made in beforeAll");
  let failed = 0;
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as { query: unknown }).query = (...args: unknown[]) => {
      const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
      if (failed < times && text?.includes("pg_attribute")) {
        failed++;
        const error = Object.assign(new Error('relation "elsewhere.t_gone" does not exist'), {
          code: "42P01",
        });
        return Promise.reject(error);
      }
      return query(...args);
    };
  });
  return { db: new Kysely({ dialect: new PostgresDialect({ pool }) }) as AnyKysely, failed: () => failed };
}

describe("migrate on PostgreSQL beside other schemas' changes", () => {
  it("migrate - a table dropped elsewhere while Kysely reads the catalog: tried again, every migration applied", async () => {
    const { db, failed } = droppedDuringIntrospection(2);
    try {
      const applied = await migrate(db, { tablePrefix: "race_" });
      expect(failed()).toBe(2);
      expect(applied.at(-1)).toBe("0016_webhooks");
      expect(await migrate(db, { tablePrefix: "race_" })).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it("migrate - the catalog read failing every time: the run fails with the cause, after three more tries", async () => {
    const { db, failed } = droppedDuringIntrospection(10);
    try {
      await expect(migrate(db, { tablePrefix: "race_again_" })).rejects.toThrow(/migration failed/);
      expect(failed()).toBe(4);
    } finally {
      await db.destroy();
    }
  });
});
