import type { AuditDraft, AuditLinks } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryAuditLogStore } from "./audit-log-store.js";
import { createMemoryStores } from "./memory-stores.js";

/** The memory store's own bounds (the AuditLogStore suite runs in memory-stores.test.ts). */
const seal = (draft: AuditDraft, links: AuditLinks) => `${draft.id}:${links.seq}:${links.prevHash}`;

const draft = (n: number, at: number, organizationId: string | null): AuditDraft => ({
  id: n.toString(16).padStart(32, "0"),
  at,
  type: "login.succeeded",
  actorType: "user",
  actorId: "user-ada",
  userId: "user-ada",
  organizationId,
  sessionId: null,
  ip: null,
  userAgent: null,
  reason: null,
});

const ALL = { order: "asc", limit: 1_000 } as const;

describe("createMemoryAuditLogStore", () => {
  it("maxEntries - past it the oldest entries go, of every index, and the chains still continue", async () => {
    const store = createMemoryAuditLogStore({ maxEntries: 5 });
    for (let n = 1; n <= 12; n++) await store.append([draft(n, n, n % 2 === 0 ? "org-a" : null)], seal);
    expect(store.size()).toBe(5);
    expect((await store.list(ALL)).map((entry) => entry.seq)).toEqual([8, 9, 10, 11, 12]);
    expect((await store.list({ ...ALL, organizationId: "org-a" })).map((entry) => entry.seq)).toEqual([
      8, 10, 12,
    ]);
    const [last] = await store.list({ ...ALL, order: "desc", limit: 1 });
    const [next] = await store.append([draft(13, 13, "org-a")], seal);
    expect([next?.seq, next?.prevHash, next?.orgPrevHash]).toEqual([13, last?.hash, last?.hash]);
  });

  it("maxEntries - a batch larger than it keeps its newest entries", async () => {
    const store = createMemoryAuditLogStore({ maxEntries: 3 });
    const entries = await store.append(
      Array.from({ length: 5 }, (_, n) => draft(n + 1, n, "org-a")),
      seal,
    );
    expect(entries).toHaveLength(5);
    expect(await store.list({ ...ALL, organizationId: "org-a" })).toEqual(entries.slice(2));
  });

  it("sweep - nothing before a sweepAudit, then that retention on the store's clock", async () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
    const store = stores.auditLog;
    const now = clock.now();
    await store.append(
      [draft(1, now - 2_000, "org-a"), draft(2, now - 500, null), draft(3, now, "org-a")],
      seal,
    );
    expect(stores.sweep()).toBe(0);
    expect(await store.sweepAudit(now - 1_000)).toBe(1); // a retention of 1 s
    clock.advance(600);
    expect(store.sweep()).toBe(1);
    expect((await store.list(ALL)).map((entry) => entry.seq)).toEqual([3]);
    clock.advance(500);
    expect(stores.sweep()).toBe(1);
    expect(store.size()).toBe(0);
    expect(await store.list({ ...ALL, organizationId: "org-a" })).toEqual([]);
    stores.close();
  });
});
