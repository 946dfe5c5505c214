import type { ApiKeyRecord } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createSqlStores } from "./sql-stores.js";
import { loggedPostgresForFile } from "./test-logged-postgres.js";

// PostgreSQL counts the requests of one turn of the event loop with one statement (`useApiKey`):
// each lookupId once with its number of requests, the calls of one lookupId given consecutive
// counts; a failing statement refuses every request it carried and counts none.
const postgres = loggedPostgresForFile(4);

const key = (lookupId: string): ApiKeyRecord => ({
  id: `id-${lookupId}`,
  lookupId,
  keyHash: "hash",
  name: "CI",
  start: `pc_${lookupId.slice(0, 8)}`,
  userId: `user-${lookupId}`,
  organizationId: null,
  permissions: null,
  createdAt: 1_700_000_000_000,
  expiresAt: null,
  lastUsedAt: null,
});

describe("useApiKey on PostgreSQL: a turn's requests in one statement", () => {
  it("useApiKey - 30 requests of 3 keys and an unknown lookupId in one turn: one statement, counts 1..n per lookupId", async () => {
    const { apiKeys } = createSqlStores({ db: postgres.db, clock: createFakeClock() });
    const keys = ["Batch0000001", "Batch0000002", "Batch0000003"].map(key);
    for (const record of keys) await apiKeys.createApiKey(record, { maxPerOwner: 10 });
    const lookupIds = [...keys.map((record) => record.lookupId), "Unknown00001"];
    postgres.statements.length = 0;
    const calls = Array.from({ length: 30 }, (_, i) => lookupIds[i % 4] as string);
    const uses = await Promise.all(calls.map((lookupId) => apiKeys.useApiKey(lookupId, 60_000, 1)));
    expect(postgres.statements).toHaveLength(1);
    for (const [index, lookupId] of lookupIds.entries()) {
      const mine = uses.filter((_, i) => calls[i] === lookupId);
      expect(mine.map((use) => use.count)).toEqual(Array.from({ length: mine.length }, (_, i) => i + 1));
      for (const use of mine) expect(use.record).toEqual(keys[index] ?? null);
    }
    // The next turn counts on from there.
    expect((await apiKeys.useApiKey("Batch0000001", 60_000, 1)).count).toBe(9);
  });

  it("useApiKey - a statement that fails rejects every request of its turn and counts none", async () => {
    const { apiKeys } = createSqlStores({ db: postgres.db, clock: createFakeClock() });
    await apiKeys.createApiKey(key("Failing00001"), { maxPerOwner: 10 });
    // A window no bigint holds: the statement fails in PostgreSQL, after the batch was sent.
    const failing = await Promise.allSettled(
      Array.from({ length: 5 }, () => apiKeys.useApiKey("Failing00001", Number.MAX_SAFE_INTEGER * 4096, 1)),
    );
    expect(failing.map((outcome) => outcome.status)).toEqual(Array(5).fill("rejected"));
    expect((await apiKeys.useApiKey("Failing00001", 60_000, 1)).count).toBe(1);
  });

  it("useApiKey - calls with another window length go into a statement of their own", async () => {
    const { apiKeys } = createSqlStores({ db: postgres.db, clock: createFakeClock() });
    postgres.statements.length = 0;
    const [short, long] = await Promise.all([
      apiKeys.useApiKey("Windows00001", 1_000, 1),
      apiKeys.useApiKey("Windows00002", 60_000, 1),
    ]);
    expect(postgres.statements).toHaveLength(2);
    expect(short?.remainingMs).toBe(1_000);
    expect(long?.remainingMs).toBe(60_000);
  });
});
