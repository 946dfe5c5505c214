import { createFakeClock } from "@portcullis/testing";
import { type LogEvent, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { plainPostgresDb, postgresDatabase, usePostgres } from "./test-databases.js";

// On PostgreSQL a counter's writes (`hit`, `refundHit`) commit without waiting for the WAL flush,
// in their own statement's transaction only: the connection's setting is back to the server's
// afterwards, and no other write (users, cooldowns, counters cleared) is relaxed.
const RELAXED = "set_config('synchronous_commit', 'off', true)";

describe("counter writes on PostgreSQL", () => {
  let server: Awaited<ReturnType<typeof usePostgres>>;
  let database: Awaited<ReturnType<typeof postgresDatabase>>;
  let db: AnyKysely;
  const statements: string[] = [];
  beforeAll(async () => {
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    // One connection: the setting read after the writes is the one they ran on.
    db = plainPostgresDb(database.url, 1, (event: LogEvent) => {
      if (event.level === "query") statements.push(event.query.sql);
    });
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    await server?.stop();
  });

  const setting = async () =>
    (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db)).rows[0]
      ?.synchronous_commit;

  it("hit and refundHit - relaxed for their own transaction only; other writes stay durable", async () => {
    const clock = createFakeClock();
    const { users, cooldowns } = createSqlStores({ db, clock });
    const before = await setting();
    expect(before).not.toBe("off");

    statements.length = 0;
    expect(await cooldowns.hit("api-key:abc", 60_000)).toEqual({ count: 1, remainingMs: 60_000 });
    expect(await cooldowns.hit("api-key:abc", 60_000)).toEqual({ count: 2, remainingMs: 60_000 });
    await cooldowns.refundHit("api-key:abc");
    expect(statements).toHaveLength(3);
    for (const text of statements) expect(text).toContain(RELAXED);
    expect(await setting()).toBe(before);
    expect((await cooldowns.hit("api-key:abc", 60_000)).count).toBe(2);

    statements.length = 0;
    await users.create({
      id: "u1",
      email: "counter@example.test",
      emailVerified: true,
      name: "Counter",
      passwordHash: null,
      identityProviders: [],
      twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
      createdAt: 1,
    });
    await cooldowns.acquire("email:reset:counter@example.test", 60_000);
    await cooldowns.clearHits("api-key:abc");
    expect(statements.length).toBeGreaterThan(0);
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
    expect(await setting()).toBe(before);
  });

  it("hit and refundHit - stores made on a host's transaction leave its commit durable", async () => {
    const clock = createFakeClock();
    statements.length = 0;
    await db.transaction().execute(async (trx) => {
      const { cooldowns } = createSqlStores({ db: trx as AnyKysely, clock });
      expect((await cooldowns.hit("api-key:in-trx", 60_000)).count).toBe(1);
      await cooldowns.refundHit("api-key:in-trx");
    });
    const writes = statements.filter((text) => /^\s*(insert|update)/i.test(text));
    expect(writes).toHaveLength(2);
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
  });
});
