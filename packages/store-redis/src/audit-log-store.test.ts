import { createHmac, randomBytes } from "node:crypto";
import { type AuditDraft, type AuditEntry, type AuditLinks, silentLogger } from "@portcullis/core";
import { runAuditLogStoreSuite } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { canStartRedis, redisForFile, withRedisToKeepBusy } from "./test-redis.js";

const SEAL_KEY = "audit-test-key";

/** A keyed hash over the draft and its links (what the core's `seal` does, with a test key). */
const seal = (draft: AuditDraft, links: AuditLinks) =>
  createHmac("sha256", SEAL_KEY)
    .update(JSON.stringify([draft, links.seq, links.prevHash, links.orgPrevHash]))
    .digest("hex");

const draft = (over: Partial<AuditDraft> = {}): AuditDraft => ({
  id: randomBytes(16).toString("hex"),
  at: Date.now(),
  type: "login.succeeded",
  actorType: "user",
  actorId: "user-1",
  userId: "user-1",
  organizationId: null,
  sessionId: null,
  ip: "203.0.113.7",
  userAgent: "test",
  reason: null,
  ...over,
});

const draftOf = ({ seq, prevHash, orgPrevHash, hash, ...rest }: AuditEntry): AuditDraft => rest;

/** Every link of the deployment's chain and of each organization's, and every entry's hash, checked. */
function expectIntactChains(entries: AuditEntry[]) {
  expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1));
  const organizationHeads = new Map<string, string>();
  let prevHash = "";
  for (const entry of entries) {
    expect(entry.prevHash).toBe(prevHash);
    const organizationId = entry.organizationId;
    expect(entry.orgPrevHash).toBe(
      organizationId === null ? null : (organizationHeads.get(organizationId) ?? ""),
    );
    expect(entry.hash).toBe(seal(draftOf(entry), entry));
    prevHash = entry.hash;
    if (organizationId !== null) organizationHeads.set(organizationId, entry.hash);
  }
}

// Two clients (two connections), as two processes would have; each test under a prefix of its own.
const file = redisForFile(2);
const { clients } = file;

const auditOn = (client: Redis, keyPrefix: string) =>
  createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 }).auditLog;

const everything = { order: "asc", limit: 1000 } as const;

runAuditLogStoreSuite({ name: "redis", create: () => ({ store: auditOn(file.client, file.prefix()) }) });

describe("redis audit log: concurrent appends", () => {
  it("append - 40 concurrent appends over 2 clients (8 stores): seqs without gaps, chains intact", async () => {
    const keyPrefix = file.prefix();
    const stores = clients.flatMap((client) => [0, 1, 2, 3].map(() => auditOn(client, keyPrefix)));
    let sealed = 0;
    const counting = (d: AuditDraft, links: AuditLinks) => {
      sealed += 1;
      return seal(d, links);
    };
    const batches = Array.from({ length: 40 }, (_, i) => {
      const organizationId = i % 3 === 0 ? null : `org-${i % 3}`;
      return Array.from({ length: 1 + (i % 2) }, () => draft({ organizationId, reason: `batch-${i}` }));
    });
    const results = await Promise.all(
      batches.map((drafts, i) => (stores[i % stores.length] ?? stores[0])?.append(drafts, counting)),
    );
    const entries = await auditOn(clients[0] as Redis, keyPrefix).list(everything);
    expect(entries).toHaveLength(60);
    expectIntactChains(entries);
    // Each append's entries are consecutive and are what it resolved to.
    for (const [i, result] of results.entries()) {
      expect(result?.map(draftOf)).toEqual(batches[i]);
      expect(result).toEqual(entries.slice((result?.[0]?.seq ?? 0) - 1, result?.at(-1)?.seq));
    }
    // Stores competed: some drafts were sealed again on heads read anew.
    expect(sealed).toBeGreaterThan(60);
  });

  it("append - a writer that gets in between the read and the write: sealed again, nothing forks", async () => {
    const keyPrefix = file.prefix();
    const client = clients[0] as Redis;
    const first = auditOn(client, keyPrefix);
    const second = auditOn(clients[1] as Redis, keyPrefix);
    await first.append([draft({ organizationId: "org-a" })], seal);
    const { hmget } = client;
    // The first read of the heads answers, then another process appends before this one writes.
    client.hmget = (async (...args: Parameters<Redis["hmget"]>) => {
      const read = await hmget.apply(client, args);
      client.hmget = hmget;
      await second.append([draft({ organizationId: "org-a", reason: "between" })], seal);
      return read;
    }) as Redis["hmget"];
    const seen: AuditLinks[] = [];
    try {
      const [entry] = await first.append([draft({ organizationId: "org-a", reason: "late" })], (d, links) => {
        seen.push(links);
        return seal(d, links);
      });
      expect(seen.map((links) => links.seq)).toEqual([2, 3]);
      expect(entry).toMatchObject({ seq: 3, reason: "late" });
    } finally {
      client.hmget = hmget;
    }
    const entries = await first.list(everything);
    expect(entries.map((entry) => entry.reason)).toEqual([null, "between", "late"]);
    expectIntactChains(entries);
  });
});

describe("redis audit log: reads and retention", () => {
  it("list - by organization, filters and cursors, both orders; sweepAudit keeps the heads", async () => {
    const keyPrefix = file.prefix();
    const store = auditOn(clients[0] as Redis, keyPrefix);
    const base = 1_700_000_000_000;
    for (let i = 0; i < 30; i++)
      await store.append(
        [
          draft({
            at: base + i * 1_000,
            organizationId: i % 2 === 0 ? "org-even" : null,
            type: i % 3 === 0 ? "member.role_changed" : "login.succeeded",
            actorId: i % 5 === 0 ? "admin-1" : "user-1",
          }),
        ],
        seal,
      );
    const seqs = (entries: AuditEntry[]) => entries.map((entry) => entry.seq);
    const all = await store.list(everything);
    expectIntactChains(all);
    expect(seqs(await store.list({ order: "desc", limit: 3 }))).toEqual([30, 29, 28]);
    expect(seqs(await store.list({ order: "desc", limit: 3, afterSeq: 28 }))).toEqual([27, 26, 25]);
    expect(seqs(await store.list({ order: "asc", limit: 2, afterSeq: 28 }))).toEqual([29, 30]);
    const org = await store.list({ order: "asc", limit: 1000, organizationId: "org-even" });
    expect(seqs(org)).toEqual(all.filter((_, i) => i % 2 === 0).map((entry) => entry.seq));
    expect(await store.list({ order: "asc", limit: 10, organizationId: "org-none" })).toEqual([]);
    const filtered = await store.list({
      order: "desc",
      limit: 2,
      organizationId: "org-even",
      type: "member.role_changed",
      actorId: "admin-1",
    });
    // i even (the organization), a multiple of 3 (the type) and of 5 (the actor): i = 0 alone.
    expect(seqs(filtered)).toEqual(all.filter((_, i) => i % 30 === 0).map((entry) => entry.seq));
    const window = await store.list({ order: "asc", limit: 1000, from: base + 5_000, to: base + 8_000 });
    expect(seqs(window)).toEqual([6, 7, 8]);
    expect(await store.sweepAudit(base + 10_000)).toBe(10);
    expect(seqs(await store.list(everything))).toEqual(all.slice(10).map((entry) => entry.seq));
    expect((await store.list({ order: "asc", limit: 1, organizationId: "org-even" }))[0]?.seq).toBe(11);
    const [next] = await store.append([draft({ organizationId: "org-even" })], seal);
    expect(next).toMatchObject({ seq: 31, prevHash: all[29]?.hash, orgPrevHash: all[28]?.hash });
    expect(await store.sweepAudit(base + 10_000)).toBe(0);
  });

  it("list - a filter that matches past the first pages (600 entries scanned in pages of 500)", async () => {
    const keyPrefix = file.prefix();
    const store = auditOn(clients[0] as Redis, keyPrefix);
    for (let i = 0; i < 6; i++)
      await store.append(
        Array.from({ length: 100 }, (_, j) => draft({ type: i * 100 + j === 3 ? "rare" : "common" })),
        seal,
      );
    const [rare] = await store.list({ order: "desc", limit: 5, type: "rare" });
    expect(rare?.seq).toBe(4);
    expect(await store.list({ order: "desc", limit: 5, type: "none" })).toEqual([]);
    expect(await store.sweepAudit(Date.now() + 60_000)).toBe(600);
  });
});

describe("redis audit log: when Redis fails", () => {
  it("append - a closed client rejects and writes nothing; so does one closed between the read and the write", async () => {
    const keyPrefix = file.prefix();
    const closed = await file.openClient({ commandTimeout: 500, logger: silentLogger });
    const store = auditOn(closed, keyPrefix);
    await store.append([draft()], seal);
    // The seal of the second append closes the connection: the script is never sent.
    await expect(
      store.append([draft(), draft({ organizationId: "org-a" })], (d, links) => {
        closed.disconnect();
        return seal(d, links);
      }),
    ).rejects.toThrow();
    await expect(store.append([draft()], seal)).rejects.toThrow();
    const reader = auditOn(clients[0] as Redis, keyPrefix);
    expect((await reader.list(everything)).map((entry) => entry.seq)).toEqual([1]);
    expect(await reader.list({ ...everything, organizationId: "org-a" })).toEqual([]);
    expect((await reader.append([draft()], seal))[0]?.seq).toBe(2);
    expectIntactChains(await reader.list(everything));
  });

  it.skipIf(!canStartRedis)(
    "append - Redis too busy to answer within the bound: rejects in time, and the late script writes nothing",
    () =>
      withRedisToKeepBusy(async ({ client, busyFor }) => {
        const store = createRedisStores({
          client,
          keyPrefix: "audit-late:",
          operationTimeoutMs: 500,
        }).auditLog;
        await store.append([draft({ organizationId: "org-a" })], seal);
        let busy: Promise<unknown> | undefined;
        const started = Date.now();
        // Redis turns busy (a 1.5 s script) after the heads were read, before the append's script:
        // the busy script is started once the heads' reply is in, and given 100 ms to be running,
        // so the append's script cannot reach Redis first (started in the seal callback, it could,
        // and then ran in time, its reply held up behind the busy script).
        const readHeads = client.hmget.bind(client);
        (client as { hmget: unknown }).hmget = async (...args: Parameters<typeof readHeads>) => {
          const heads = await readHeads(...args);
          busy = busyFor(1_500_000);
          await new Promise((resolve) => setTimeout(resolve, 100));
          return heads;
        };
        await expect(store.append([draft({ organizationId: "org-a" })], seal)).rejects.toThrow();
        (client as { hmget: unknown }).hmget = readHeads;
        expect(Date.now() - started).toBeLessThan(1_200);
        await busy;
        const entries = await store.list(everything);
        expect(entries.map((entry) => entry.seq)).toEqual([1]);
        expect((await store.append([draft({ organizationId: "org-a" })], seal))[0]?.seq).toBe(2);
        expectIntactChains(await store.list(everything));
      }),
    10_000,
  );
});
