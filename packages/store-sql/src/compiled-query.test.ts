import { CamelCasePlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledQuery } from "./compiled-query.js";
import type { AnyKysely } from "./context.js";
import { postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";

// A query compiled once per Kysely instance, on SQLite and PostgreSQL (their placeholders differ).
let server: Awaited<ReturnType<typeof usePostgres>>;
let schema: Awaited<ReturnType<typeof postgresSchema>>;
let sqlite: AnyKysely;
beforeAll(async () => {
  server = await usePostgres();
  schema = await postgresSchema(server.url);
  sqlite = sqliteDb();
  for (const db of [schema.db, sqlite]) {
    await sql`create table items (id text primary key, owner_id text, rank integer)`.execute(db);
    await sql`insert into items values ('a', 'x', 1), ('b', 'x', 2), ('c', 'y', 3)`.execute(db);
  }
}, 60_000);
afterAll(async () => {
  await sqlite?.destroy();
  await schema?.drop();
  await server?.stop();
});

describe("compiledQuery", () => {
  it("compiledQuery - answers as the built query, each database in its own dialect, compiling once per instance", async () => {
    let builds = 0;
    // The arguments' order differs from the parameters' (rank first, then the owner).
    const find = compiledQuery<[number, string], { id: string }>(2, (db, minRank, owner) => {
      builds++;
      return db.selectFrom("items").select("id").where("owner_id", "=", owner).where("rank", ">=", minRank);
    });
    for (const db of [sqlite, schema.db]) {
      for (const [minRank, owner] of [
        [1, "x"],
        [2, "x"],
        [1, "y"],
        [9, "x"],
      ] as const) {
        const built = await db
          .selectFrom("items")
          .select("id")
          .where("owner_id", "=", owner)
          .where("rank", ">=", minRank)
          .execute();
        expect(await find(db, minRank, owner)).toEqual(built);
      }
    }
    expect(builds).toBe(2);
    // Concurrent calls with different arguments do not share parameters.
    const answers = await Promise.all(["x", "y", "z"].map((owner) => find(schema.db, 0, owner)));
    expect(answers.map((rows) => rows.length)).toEqual([2, 1, 0]);
  });

  it("compiledQuery - values fixed by the build stay; the instance's plugins apply to results", async () => {
    const camel = schema.db.withPlugin(new CamelCasePlugin());
    const find = compiledQuery<[string], { ownerId: string; rank: number }>(1, (db, id) =>
      db.selectFrom("items").select(["owner_id", "rank"]).where("rank", "<", 3).where("id", "=", id),
    );
    expect(await find(camel, "b")).toEqual([{ ownerId: "x", rank: 2 }]);
    expect(await find(camel, "c")).toEqual([]);
  });

  it("compiledQuery - an argument the build leaves out of the parameters is refused", async () => {
    const find = compiledQuery<[string, string], { id: string }>(2, (db, id) =>
      db.selectFrom("items").select("id").where("id", "=", id),
    );
    await expect(find(sqlite, "a", "b")).rejects.toThrow("argument 1 is not a parameter");
  });
});
