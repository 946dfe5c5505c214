import {
  createFakeClock,
  SAMPLE_T0,
  sampleWebhookDelivery,
  sampleWebhookEndpoint,
  succeededWebhookAttempt,
} from "@portcullis/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { loggedPostgresForFile, plainUser } from "./test-logged-postgres.js";

// On PostgreSQL a counter's writes (`hit`, `refundHit`) commit without waiting for the WAL flush,
// in their own statement's transaction only: the connection's setting is back to the server's
// afterwards, and no other write (users, cooldowns, counters cleared) is relaxed.
const RELAXED = "set_config('synchronous_commit', 'off', true)";

describe("counter writes on PostgreSQL", () => {
  // One connection: the setting read after the writes is the one they ran on.
  const postgres = loggedPostgresForFile(1);
  const { statements } = postgres;

  const setting = async () =>
    (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(postgres.db)).rows[0]
      ?.synchronous_commit;

  it("hit and refundHit - relaxed for their own transaction only; other writes stay durable", async () => {
    const clock = createFakeClock();
    const { users, cooldowns } = createSqlStores({ db: postgres.db, clock });
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
    await users.create(plainUser("counter@example.test", "Counter"));
    await cooldowns.acquire("email:reset:counter@example.test", 60_000);
    await cooldowns.clearHits("api-key:abc");
    expect(statements.length).toBeGreaterThan(0);
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
    expect(await setting()).toBe(before);
  });

  it("clearKeys of both tables and an activity entry - relaxed for their own transaction only; what is around them stays durable", async () => {
    const clock = createFakeClock();
    const { users, cooldowns, activity } = createSqlStores({ db: postgres.db, clock });
    const before = await setting();
    await cooldowns.hit("login:cleared@example.test", 60_000);
    await cooldowns.acquire("lock:cleared@example.test", 60_000);
    statements.length = 0;
    await cooldowns.clearKeys?.(["login:cleared@example.test"], ["lock:cleared@example.test"]);
    // Nothing left to delete: still one row, so still relaxed.
    await cooldowns.clearKeys?.(["login:cleared@example.test"], ["lock:cleared@example.test"]);
    await activity?.record(
      {
        id: "a1",
        userId: "u1",
        type: "login.succeeded",
        at: clock.now(),
        ip: null,
        browser: null,
        os: null,
        reason: "password",
      },
      86_400_000,
    );
    const relaxed = statements.filter(
      (text) => !/portcullis_activity" where "at"|delete from "portcullis_activity/.test(text),
    );
    expect(relaxed).toHaveLength(3);
    for (const text of relaxed) expect(text).toContain(RELAXED);
    expect(await setting()).toBe(before);
    expect((await cooldowns.hit("login:cleared@example.test", 60_000)).count).toBe(1);
    expect((await cooldowns.acquire("lock:cleared@example.test", 60_000)).acquired).toBe(true);
    expect((await activity?.list("u1", { limit: 10 }))?.map((entry) => entry.id)).toEqual(["a1"]);

    statements.length = 0;
    await users.create(plainUser("cleared@example.test", "Cleared"));
    expect(statements.length).toBeGreaterThan(0);
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
  });

  it("useApiKey - one relaxed statement (the counter's UPSERT in the key's read)", async () => {
    const clock = createFakeClock();
    const { apiKeys } = createSqlStores({ db: postgres.db, clock });
    const before = await setting();
    statements.length = 0;
    expect(await apiKeys.useApiKey("lookup000001", 60_000, 1)).toEqual({
      record: null,
      count: 1,
      remainingMs: 60_000,
    });
    expect(await apiKeys.useApiKey("lookup000001", 60_000, 1)).toMatchObject({ record: null, count: 2 });
    expect(statements).toHaveLength(2);
    for (const text of statements) expect(text).toContain(RELAXED);
    expect(await setting()).toBe(before);
    expect((await apiKeys.useApiKey("lookup000001", 60_000, 5)).count).toBe(7);
  });

  it("webhook bookkeeping - lease, advance, attempt and release relaxed; the endpoint's creation durable", async () => {
    const { webhooks } = createSqlStores({ db: postgres.db, clock: createFakeClock() });
    const before = await setting();
    const endpoint = sampleWebhookEndpoint();
    const lease = { owner: "instance-a", now: SAMPLE_T0 + 10 };
    statements.length = 0;
    expect(await webhooks.createEndpoint(endpoint, { maxPerScope: 5 })).toBe("created");
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
    statements.length = 0;
    expect(await webhooks.tryLease(endpoint.id, lease.owner, lease.now, lease.now + 30_000)).toBe(true);
    const delivery = sampleWebhookDelivery(endpoint.id);
    expect(await webhooks.advance(endpoint.id, lease, 0, 1, [delivery])).toBe(true);
    const attempt = succeededWebhookAttempt(lease.now + 5);
    expect(await webhooks.recordAttempt(endpoint.id, lease, delivery.id, attempt, null)).toBe(true);
    await webhooks.releaseLease(endpoint.id, lease.owner);
    // Each write's first statement (the endpoint's row, under the lease) relaxes its transaction.
    const endpointWrites = statements.filter((text) => /^\s*update\s+"[^"]*webhook_endpoints"/i.test(text));
    expect(endpointWrites).toHaveLength(4);
    for (const text of endpointWrites) expect(text).toContain(RELAXED);
    expect(await setting()).toBe(before);
    // A refused write (another owner) relaxes nothing and writes nothing.
    expect(await webhooks.advance(endpoint.id, { owner: "instance-b", now: lease.now }, 1, 2, [])).toBe(
      false,
    );
    expect((await webhooks.findEndpoint(endpoint.id))?.cursor).toBe(1);
    expect(await webhooks.findDelivery(endpoint.id, delivery.id)).toMatchObject({
      status: "succeeded",
      attempts: 1,
    });
  });

  it("hit and refundHit - stores made on a host's transaction leave its commit durable", async () => {
    const clock = createFakeClock();
    statements.length = 0;
    await postgres.db.transaction().execute(async (trx) => {
      const { cooldowns } = createSqlStores({ db: trx as AnyKysely, clock });
      expect((await cooldowns.hit("api-key:in-trx", 60_000)).count).toBe(1);
      await cooldowns.refundHit("api-key:in-trx");
    });
    const writes = statements.filter((text) => /^\s*(insert|update)/i.test(text));
    expect(writes).toHaveLength(2);
    for (const text of statements) expect(text).not.toContain("synchronous_commit");
  });
});
