import { createFakeClock } from "@portcullis/testing";
import { Kysely, type LogEvent } from "kysely";
import Database from "libsql";
import { afterAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { plainPostgresDb, postgresDatabase, usePostgres } from "./test-databases.js";

// A cooldown that is running refuses `acquire` with a read: no INSERT/UPDATE, so the 429 of a
// running email cooldown takes no row lock (PostgreSQL), no write lock (SQLite) and no commit to
// flush. A free or expired key still goes through the one UPSERT that decides who acquires.

function cooldownSuite(name: string, open: (log: (event: LogEvent) => void) => Promise<AnyKysely>) {
  describe(`cooldown acquire reads first on ${name}`, () => {
    const statements: string[] = [];
    const verbs = () => statements.map((text) => text.trim().split(/\s+/)[0]?.toLowerCase());

    it("a live cooldown is refused by one select; a free and an expired one are acquired by the upsert; 20 concurrent acquires of an expired key: one wins, and no second acquire writes", async () => {
      const db = await open((event) => {
        if (event.level === "query") statements.push(event.query.sql);
      });
      try {
        const clock = createFakeClock();
        const stores = createSqlStores({ db, clock });
        await stores.migrate();
        const { cooldowns } = stores;
        statements.length = 0;
        expect(await cooldowns.acquire("email:reset:a@x.test", 60_000)).toEqual({
          acquired: true,
          remainingMs: 60_000,
        });
        expect(verbs()).toEqual(["select", "insert"]);

        statements.length = 0;
        clock.advance(10_000);
        expect(await cooldowns.acquire("email:reset:a@x.test", 60_000)).toEqual({
          acquired: false,
          remainingMs: 50_000,
        });
        expect(verbs()).toEqual(["select"]);

        clock.advance(50_000);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, () => cooldowns.acquire("email:reset:a@x.test", 60_000)),
        );
        expect(outcomes.filter((outcome) => outcome.acquired)).toHaveLength(1);
        expect(outcomes.every((outcome) => outcome.remainingMs > 0)).toBe(true);

        statements.length = 0;
        const again = await Promise.all(
          Array.from({ length: 5 }, () => cooldowns.acquire("email:reset:a@x.test", 60_000)),
        );
        expect(again.every((outcome) => !outcome.acquired && outcome.remainingMs === 60_000)).toBe(true);
        expect(verbs()).toEqual(Array(5).fill("select"));
        // A release ends it at once: the next acquire wins.
        await cooldowns.release("email:reset:a@x.test");
        expect((await cooldowns.acquire("email:reset:a@x.test", 60_000)).acquired).toBe(true);
      } finally {
        await db.destroy();
      }
    });
  });
}

cooldownSuite(
  "SQLite",
  async (log) =>
    new Kysely({ dialect: createSqliteDialect({ database: new Database(":memory:") }), log }) as AnyKysely,
);

const server = await usePostgres();
const database = await postgresDatabase(server.url);
afterAll(async () => {
  await database.drop();
  await server.stop();
});
cooldownSuite("PostgreSQL", async (log) => plainPostgresDb(database.url, 10, log));
