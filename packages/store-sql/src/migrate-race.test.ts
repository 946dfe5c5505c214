import { Kysely, PostgresDialect, sql } from "kysely";
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

function kysely(max: number): AnyKysely {
  if (!database) throw new Error("the database is made in beforeAll");
  const pool = new pg.Pool({ connectionString: database.url, max });
  pool.on("error", () => {});
  return new Kysely({ dialect: new PostgresDialect({ pool }) }) as AnyKysely;
}

/**
 * Other schemas of the same database made and dropped without pause (as other apps' or other
 * tests' migrations do) until `stop()`: resolves to how many were dropped.
 */
function churnOtherSchemas(db: AnyKysely): { stop(): Promise<number> } {
  let running = true;
  let dropped = 0;
  const loop = async (worker: number) => {
    for (let round = 0; running; round++) {
      const schema = `elsewhere_${worker}_${round}`;
      await sql`create schema ${sql.id(schema)}`.execute(db);
      for (let table = 0; table < 15; table++) {
        await sql`create table ${sql.id(schema, `t${table}`)} (id serial primary key, v text)`.execute(db);
      }
      await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
      dropped++;
    }
  };
  const loops = Promise.all([0, 1, 2].map(loop));
  return {
    async stop() {
      running = false;
      await loops;
      return dropped;
    },
  };
}

describe("migrate on PostgreSQL beside other schemas' changes", () => {
  it("migrate - tables and schemas made and dropped elsewhere meanwhile: every run applies every migration", async () => {
    const db = kysely(4);
    const churnDb = kysely(3);
    const churn = churnOtherSchemas(churnDb);
    try {
      for (let run = 0; run < 8; run++) {
        const applied = await migrate(db, { tablePrefix: `race${run}_` });
        expect(applied.at(-1)).toBe("0020_scim");
        expect(await migrate(db, { tablePrefix: `race${run}_` })).toEqual([]);
      }
    } finally {
      const dropped = await churn.stop();
      expect(dropped).toBeGreaterThan(0);
      await db.destroy();
      await churnDb.destroy();
    }
    // Eight full migrations beside the churn: 18 s alone on a 2-core machine, more beside other files.
  }, 60_000);
});
