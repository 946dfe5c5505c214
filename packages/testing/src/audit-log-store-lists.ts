// The AuditLogStore conformance tests of `list` and `sweepAudit` (audit-log-store-suite.ts runs them).
import type { AuditEntry, AuditLogStore, AuditQuery } from "@portcullis/core";
import { expect } from "vitest";
import { type AuditLogContext, expectChains, listAll, T0 } from "./audit-log-store-context.js";
import type { StoreTests } from "./store-fixture.js";

const seqs = (entries: AuditEntry[]) => entries.map((entry) => entry.seq);

/** The seqs `query` lists, paged `size` at a time through `afterSeq` in `query.order`. */
async function pagedSeqs(store: AuditLogStore, query: AuditQuery, size: number): Promise<number[]> {
  const listed: number[] = [];
  for (let afterSeq: number | undefined; ; ) {
    const page = await store.list({ ...query, limit: size, afterSeq });
    expect(page.length).toBeLessThanOrEqual(size);
    listed.push(...seqs(page));
    if (page.length < size) return listed;
    afterSeq = (page.at(-1) as AuditEntry).seq;
  }
}

/**
 * Twelve entries, appended one by one: organizations a, b, none in turn; types and actors in
 * turn; `at` (T0 + s, s a second each) out of `seq`'s order, so `list` must order by `seq`.
 */
async function twelveEntries({ append, draft }: AuditLogContext): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  for (let n = 0; n < 12; n++) {
    const [entry] = await append([
      draft({
        organizationId: ["org-a", "org-b", null][n % 3] ?? null,
        type: n % 2 === 0 ? "login.succeeded" : "member.role_changed",
        actorId: n % 4 === 0 ? "user-bob" : "user-ada",
        at: T0 + ((n * 5) % 12) * 1_000,
      }),
    ]);
    entries.push(entry as AuditEntry);
  }
  return entries;
}

const ALL = { order: "asc", limit: 1_000 } as const;

export const AUDIT_LIST_TESTS: StoreTests<AuditLogContext>[string] = {
  "list - an empty log lists []": async ({ store }) => {
    expect(await store.list(ALL)).toEqual([]);
    expect(await store.list({ ...ALL, order: "desc", organizationId: "org-a" })).toEqual([]);
  },
  "list - asc is seq ascending and desc seq descending, whatever the entries' at": async (context) => {
    const entries = await twelveEntries(context);
    expect(await context.store.list(ALL)).toEqual(entries);
    expect(await context.store.list({ ...ALL, order: "desc" })).toEqual([...entries].reverse());
  },
  "list - organizationId lists only that organization's entries; an unknown one []": async (context) => {
    const entries = await twelveEntries(context);
    const ofA = entries.filter((entry) => entry.organizationId === "org-a");
    expect(await context.store.list({ ...ALL, organizationId: "org-a" })).toEqual(ofA);
    expect(await context.store.list({ ...ALL, order: "desc", organizationId: "org-b" })).toEqual(
      entries.filter((entry) => entry.organizationId === "org-b").reverse(),
    );
    expect(await context.store.list({ ...ALL, organizationId: "org-unknown" })).toEqual([]);
  },
  "list - type and actorId filter, alone, together and with organizationId": async (context) => {
    const entries = await twelveEntries(context);
    const { store } = context;
    const where = (keep: (entry: AuditEntry) => boolean) => seqs(entries.filter(keep));
    expect(seqs(await store.list({ ...ALL, type: "member.role_changed" }))).toEqual(
      where((entry) => entry.type === "member.role_changed"),
    );
    expect(seqs(await store.list({ ...ALL, actorId: "user-bob" }))).toEqual(
      where((entry) => entry.actorId === "user-bob"),
    );
    expect(seqs(await store.list({ ...ALL, type: "login.succeeded", actorId: "user-ada" }))).toEqual(
      where((entry) => entry.type === "login.succeeded" && entry.actorId === "user-ada"),
    );
    expect(seqs(await store.list({ ...ALL, organizationId: "org-a", actorId: "user-bob" }))).toEqual(
      where((entry) => entry.organizationId === "org-a" && entry.actorId === "user-bob"),
    );
    expect(await store.list({ ...ALL, type: "no.such_type" })).toEqual([]);
  },
  "list - from includes its instant and to leaves its own out": async (context) => {
    const entries = await twelveEntries(context);
    const [from, to] = [T0 + 3_000, T0 + 8_000];
    const inside = seqs(entries.filter((entry) => entry.at >= from && entry.at < to));
    expect(inside).toHaveLength(5);
    expect(seqs(await context.store.list({ ...ALL, from, to }))).toEqual(inside);
    expect(seqs(await context.store.list({ ...ALL, from }))).toEqual(
      seqs(entries.filter((entry) => entry.at >= from)),
    );
    expect(seqs(await context.store.list({ ...ALL, order: "desc", to }))).toEqual(
      seqs(entries.filter((entry) => entry.at < to)).reverse(),
    );
  },
  "list - limit returns the first entries in the order": async (context) => {
    await twelveEntries(context);
    expect(seqs(await context.store.list({ order: "asc", limit: 3 }))).toEqual([1, 2, 3]);
    expect(seqs(await context.store.list({ order: "desc", limit: 4 }))).toEqual([12, 11, 10, 9]);
    expect(seqs(await context.store.list({ order: "desc", limit: 1, organizationId: "org-b" }))).toEqual([
      11,
    ]);
  },
  "list - afterSeq lists past the cursor: seq > it ascending, seq < it descending": async (context) => {
    await twelveEntries(context);
    const { store } = context;
    expect(seqs(await store.list({ ...ALL, afterSeq: 9 }))).toEqual([10, 11, 12]);
    expect(seqs(await store.list({ ...ALL, order: "desc", afterSeq: 4 }))).toEqual([3, 2, 1]);
    expect(seqs(await store.list({ ...ALL, afterSeq: 12 }))).toEqual([]);
    expect(seqs(await store.list({ ...ALL, order: "desc", afterSeq: 1 }))).toEqual([]);
    expect(seqs(await store.list({ ...ALL, organizationId: "org-a", afterSeq: 5 }))).toEqual([7, 10]);
  },
  "list - paging with afterSeq lists everything once, in both orders, filters kept": async ({
    append,
    draft,
    store,
  }) => {
    for (let n = 0; n < 5; n++) {
      await append(
        Array.from({ length: 5 }, (_, i) => draft({ organizationId: i % 2 === 0 ? "org-a" : null })),
      );
    }
    const every = Array.from({ length: 25 }, (_, n) => n + 1);
    expect(await pagedSeqs(store, { order: "asc", limit: 0 }, 4)).toEqual(every);
    expect(await pagedSeqs(store, { order: "desc", limit: 0 }, 4)).toEqual([...every].reverse());
    const ofA = every.filter((seq) => (seq - 1) % 5 !== 1 && (seq - 1) % 5 !== 3);
    expect(await pagedSeqs(store, { order: "asc", limit: 0, organizationId: "org-a" }, 4)).toEqual(ofA);
    expect(await pagedSeqs(store, { order: "desc", limit: 0, organizationId: "org-a" }, 5)).toEqual(
      [...ofA].reverse(),
    );
  },
};

export const AUDIT_SWEEP_TESTS: StoreTests<AuditLogContext>[string] = {
  "sweepAudit - removes only the entries older than the instant and answers how many": async ({
    append,
    draft,
    store,
  }) => {
    const ats = [T0 - 100, T0, T0 - 50, T0 + 100, T0 - 1]; // not in seq's order
    await append(ats.map((at, n) => draft({ at, organizationId: n % 2 === 0 ? "org-a" : null })));
    expect(await store.sweepAudit(T0 - 50)).toBe(1);
    expect(await store.sweepAudit(T0)).toBe(2);
    const left = await listAll(store);
    expect(left.map((entry) => entry.at)).toEqual([T0, T0 + 100]);
    expect(seqs(left)).toEqual([2, 4]);
    expect(seqs(await store.list({ ...ALL, organizationId: "org-a" }))).toEqual([]);
    expect(await store.sweepAudit(T0)).toBe(0);
  },
  "sweepAudit - the heads stay: the next entry links to the last one written, in both chains": async ({
    append,
    draft,
    store,
  }) => {
    const old = await append([
      draft({ organizationId: "org-a", at: T0 - 10 }),
      draft({ organizationId: "org-b", at: T0 - 9 }),
      draft({ at: T0 - 8 }),
    ]);
    expectChains(await listAll(store));
    expect(await store.sweepAudit(T0)).toBe(3);
    expect(await listAll(store)).toEqual([]);
    const [next, ofA, ofC] = await append([
      draft({ organizationId: "org-a" }),
      draft({ organizationId: "org-a" }),
      draft({ organizationId: "org-c" }),
    ]);
    expect({ seq: next?.seq, prevHash: next?.prevHash, orgPrevHash: next?.orgPrevHash }).toEqual({
      seq: 4,
      prevHash: old[2]?.hash,
      orgPrevHash: old[0]?.hash,
    });
    expect([ofA?.orgPrevHash, ofC?.orgPrevHash]).toEqual([next?.hash, ""]);
    const [ofB] = await append([draft({ organizationId: "org-b" })]);
    expect([ofB?.seq, ofB?.prevHash, ofB?.orgPrevHash]).toEqual([7, ofC?.hash, old[1]?.hash]);
  },
};
