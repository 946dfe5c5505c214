import { createFakeClock } from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { deleteInBatches } from "./sweep.js";
import { postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";

// `sweep` and the activity's retention sweep delete in batches, each its own statement and
// transaction: on SQLite, PostgreSQL and MariaDB, every expired row goes and no live one, and a
// large sweep lets other statements on the same table run, and commit, between its batches.

const NOW = 1_800_000_000_000;

/** `count` rows of `<prefix>counters` expiring at NOW - 1 - i (so all are expired at NOW), in inserts of 1,000. */
async function seedExpiredCounters(db: AnyKysely, count: number, prefix = "old") {
  for (let start = 0; start < count; start += 1000) {
    const rows = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
      id: `${prefix}:${start + i}`,
      hits: 1,
      expires_at: NOW - 1 - ((start + i) % 50_000),
    }));
    await db.insertInto("portcullis_counters").values(rows).execute();
  }
}

const countRows = async (db: AnyKysely, table: string) => {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(
    db,
  );
  return Number(rows[0]?.n);
};

function sweepSuite(name: string, open: () => Promise<{ db: AnyKysely; close(): Promise<void> }>) {
  describe(`sweep in batches on ${name}`, () => {
    let db: AnyKysely;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await open());
      await migrate(db);
    });
    afterAll(() => close?.());

    it("removes every expired row of each table and no live one, over many batches", async () => {
      const clock = createFakeClock({ start: NOW - 10_000 });
      const stores = createSqlStores({ db, clock, sweepBatchRows: 7 });
      for (let i = 0; i < 30; i++) {
        await stores.cooldowns.hit(`short:${i}`, 5_000);
        await stores.cooldowns.acquire(`lock:${i}`, 5_000);
      }
      for (let i = 0; i < 3; i++) await stores.cooldowns.hit(`long:${i}`, 60_000);
      clock.advance(5_000);
      expect(await stores.sweep()).toBe(60);
      expect(await stores.sweep()).toBe(0);
      expect((await stores.cooldowns.hit("long:0", 60_000)).count).toBe(2);
      await db.deleteFrom("portcullis_counters").execute();
      await db.deleteFrom("portcullis_cooldowns").execute();
    });

    it("api keys - an expired key is not swept: its owner still sees it, as expired", async () => {
      const clock = createFakeClock({ start: NOW });
      const stores = createSqlStores({ db, clock });
      const key = {
        id: "swept-key",
        lookupId: "SweptKey0001",
        keyHash: "hash",
        name: "Old deploy",
        start: "pc_SweptKey",
        userId: "sweep-user",
        organizationId: null,
        permissions: null,
        createdAt: NOW - 86_400_000,
        expiresAt: NOW - 3_600_000,
        lastUsedAt: null,
      };
      await stores.apiKeys.createApiKey(key, { maxPerOwner: 100 });
      clock.advance(30 * 86_400_000);
      await stores.sweep();
      expect(await stores.apiKeys.listApiKeys({ userId: "sweep-user", organizationId: null })).toEqual([key]);
      await stores.apiKeys.deleteApiKey(key.id);
    });

    it("activity - keeps an entry at the instant itself, removes every older one in batches", async () => {
      const stores = createSqlStores({ db, sweepBatchRows: 4 });
      for (let i = 0; i < 15; i++) {
        await db
          .insertInto("portcullis_activity")
          .values({
            id: `a${i}`,
            user_id: "u1",
            type: "login",
            at: 1000 + i,
            ip: null,
            browser: null,
            os: null,
            reason: null,
          })
          .execute();
      }
      expect(await stores.activity.sweepActivity(1010)).toBe(10);
      expect((await stores.activity.list("u1", { limit: 50 })).map((entry) => entry.at).sort()).toEqual([
        1010, 1011, 1012, 1013, 1014,
      ]);
      await db.deleteFrom("portcullis_activity").execute();
    });

    it("a sweep of 20,000 rows commits batch by batch: other writes to the table run and land before it ends", async () => {
      await seedExpiredCounters(db, 20_000);
      const clock = createFakeClock({ start: NOW });
      const stores = createSqlStores({ db, clock, sweepBatchRows: 200 });
      let done = false;
      const sweeping = stores.sweep().then((removed) => {
        done = true;
        return removed;
      });
      // A count through another connection sees part of the rows gone while the sweep still runs:
      // one statement for the whole table would show all or nothing.
      let seenPartly = false;
      let hitWhileSweeping = false;
      while (!done) {
        const left = await countRows(db, "portcullis_counters");
        if (!done && left > 0 && left < 20_000) {
          seenPartly = true;
          // A refusal's write on the same table (an expired key the sweep has not reached, and a new one).
          await stores.cooldowns.hit("old:19999", 60_000);
          await stores.cooldowns.hit("fresh", 60_000);
          hitWhileSweeping = !done;
          break;
        }
      }
      const removed = await sweeping;
      expect(seenPartly).toBe(true);
      expect(hitWhileSweeping).toBe(true);
      // The two keys written meanwhile are live and stay (the expired one written anew, before or
      // after its batch); every other expired row went.
      expect([19_999, 20_000]).toContain(removed);
      expect(await countRows(db, "portcullis_counters")).toBe(2);
      expect((await stores.cooldowns.hit("fresh", 60_000)).count).toBe(2);
      await db.deleteFrom("portcullis_counters").execute();
    });
  });
}

describe("deleteInBatches", () => {
  it("a batch that deletes fewer rows than it found does not end the sweep; an empty batch does", async () => {
    // On PostgreSQL a row updated while a batch runs has moved, so that batch deletes fewer than it
    // found. Here a trigger keeps some rows the same way: every batch finds them first.
    const db = sqliteDb();
    await sql`create table t (id text primary key, expires_at integer not null)`.execute(db);
    await sql`create index t_expires_at on t (expires_at)`.execute(db);
    await sql`create trigger keep before delete on t when old.id like 'keep%' begin select raise(ignore); end`.execute(
      db,
    );
    const rows = [
      ...Array.from({ length: 3 }, (_, i) => ({ id: `keep${i}`, expires_at: i })),
      ...Array.from({ length: 40 }, (_, i) => ({ id: `old${i}`, expires_at: 10 + i })),
      { id: "live", expires_at: 1000 },
    ];
    await db.insertInto("t").values(rows).execute();
    expect(await deleteInBatches(db, "sqlite", { table: "t", column: "expires_at", before: 100 }, 10)).toBe(
      40,
    );
    expect((await db.selectFrom("t").select("id").orderBy("id").execute()).map((row) => row.id)).toEqual([
      "keep0",
      "keep1",
      "keep2",
      "live",
    ]);
    await db.destroy();
  });
});

sweepSuite("SQLite", async () => {
  const db = sqliteDb();
  return { db, close: () => db.destroy() };
});

const postgres = await usePostgres();
afterAll(() => postgres.stop());
sweepSuite("PostgreSQL", async () => {
  const schema = await postgresSchema(postgres.url);
  return { db: schema.db, close: schema.drop };
});

const mysql = await useMysql();
afterAll(() => mysql?.stop());
if (mysql) {
  sweepSuite("MariaDB", async () => {
    const database = await mysqlDatabase(mysql.url);
    return { db: database.db, close: database.drop };
  });
}
