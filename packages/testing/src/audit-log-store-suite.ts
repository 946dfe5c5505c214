import type { AuditActorType, AuditDraft, AuditEntry, AuditLinks } from "@portcullis/core";
import { expect } from "vitest";
import {
  type AuditLogContext,
  auditLogContext,
  draftOf,
  entryOf,
  expectChains,
  listAll,
  recordingSeal,
  testSeal,
} from "./audit-log-store-context.js";
import { AUDIT_LIST_TESTS, AUDIT_SWEEP_TESTS } from "./audit-log-store-lists.js";
import { concurrently, defineStoreSuite, type StoreTests } from "./store-fixture.js";

const ACTOR_TYPES: AuditActorType[] = ["user", "admin", "impersonator", "api_key", "scim", "host", "system"];

/** A seal that throws on the `n`th call (from 1), the test seal otherwise. */
const sealFailingAt = (n: number) => {
  let calls = 0;
  return (draft: AuditDraft, links: AuditLinks) => {
    calls += 1;
    if (calls === n) throw new Error("seal failed");
    return testSeal(draft, links);
  };
};

const APPEND_TESTS: StoreTests<AuditLogContext>[string] = {
  'append - the first entry takes seq 1 and prevHash ""; each next one the next seq': async ({
    append,
    draft,
  }) => {
    const given = draft();
    const [first] = await append([given]);
    expect(first).toEqual(entryOf(given, { seq: 1, prevHash: "", orgPrevHash: null }));
    const [second] = await append([draft()]);
    const [third] = await append([draft()]);
    expect([second?.seq, third?.seq]).toEqual([2, 3]);
    expect([second?.prevHash, third?.prevHash]).toEqual([first?.hash, second?.hash]);
  },
  'append - orgPrevHash links to the same organization\'s previous entry, "" first, null without one':
    async ({ append, draft, store }) => {
      const organizations = ["org-a", "org-b", null, "org-a", null, "org-b", "org-a"];
      const entries: AuditEntry[] = [];
      for (const organizationId of organizations)
        entries.push(...(await append([draft({ organizationId })])));
      expect(entries.map((entry) => entry.orgPrevHash)).toEqual([
        "",
        "",
        null,
        entries[0]?.hash,
        null,
        entries[1]?.hash,
        entries[3]?.hash,
      ]);
      expectChains(await listAll(store));
    },
  "append - calls seal once per draft, with the draft and its links, and stores the hash it returns": async ({
    store,
    draft,
  }) => {
    const drafts = [draft({ organizationId: "org-a" }), draft(), draft({ organizationId: "org-a" })];
    const { seal, calls } = recordingSeal();
    const entries = await store.append(
      drafts.map((one) => ({ ...one })),
      seal,
    );
    expect(calls.map((call) => call.draft)).toEqual(drafts);
    expect(calls.map((call) => call.links)).toEqual(
      entries.map((entry) => ({ seq: entry.seq, prevHash: entry.prevHash, orgPrevHash: entry.orgPrevHash })),
    );
    expect(entries.map((entry) => entry.hash)).toEqual(calls.map((call) => call.hash));
    expect(await listAll(store)).toEqual(entries);
  },
  "append - a batch lands in its order, each entry linking to the one before it": async ({
    append,
    draft,
    store,
  }) => {
    await append([draft({ organizationId: "org-a" })]);
    const drafts = [
      draft({ organizationId: "org-b" }),
      draft({ organizationId: "org-a" }),
      draft(),
      draft({ organizationId: "org-b", at: 5 }), // an `at` out of order stays in the batch's order
    ];
    const entries = await append(drafts);
    expect(entries.map(draftOf)).toEqual(drafts);
    expect(entries.map((entry) => entry.seq)).toEqual([2, 3, 4, 5]);
    const all = await listAll(store);
    expect(all.slice(1)).toEqual(entries);
    expectChains(all);
  },
  "append - an empty batch stores nothing and resolves to []": async ({ append, draft, store }) => {
    await append([draft()]);
    expect(await append([])).toEqual([]);
    const [next] = await append([draft()]);
    expect(next?.seq).toBe(2);
    expect(await listAll(store)).toHaveLength(2);
  },
  "append - 20 concurrent appends of 1-3 drafts never fork either chain": async ({
    append,
    draft,
    store,
  }) => {
    const organizations = ["org-a", "org-b", null];
    const batches = Array.from({ length: 20 }, (_, n) =>
      Array.from({ length: (n % 3) + 1 }, (_, i) =>
        draft({ organizationId: organizations[(n + i) % 3] ?? null }),
      ),
    );
    const results = await concurrently(batches.length, (n) => append(batches[n] as AuditDraft[]));
    for (const [n, entries] of results.entries()) {
      expect(entries.map(draftOf)).toEqual(batches[n]);
      // A batch's entries are consecutive: no other append lands in the middle of it.
      expect(entries.map((entry) => entry.seq - (entries[0] as AuditEntry).seq)).toEqual(
        entries.map((_, i) => i),
      );
    }
    const all = await listAll(store);
    expect(all).toHaveLength(batches.flat().length);
    expectChains(all);
    expect(all).toEqual(results.flat().sort((a, b) => a.seq - b.seq));
  },
  "append - a seal that throws rejects and stores none of the batch; the chains do not move": async ({
    append,
    draft,
    store,
  }) => {
    const [before] = await append([draft({ organizationId: "org-a" })]);
    const batch = [draft({ organizationId: "org-a" }), draft(), draft({ organizationId: "org-a" })];
    await expect(store.append(batch, sealFailingAt(2))).rejects.toThrow("seal failed");
    await expect(store.append([draft()], sealFailingAt(1))).rejects.toThrow("seal failed");
    expect(await listAll(store)).toEqual([before]);
    const [next] = await append([draft({ organizationId: "org-a" })]);
    expect({ seq: next?.seq, prevHash: next?.prevHash, orgPrevHash: next?.orgPrevHash }).toEqual({
      seq: 2,
      prevHash: before?.hash,
      orgPrevHash: before?.hash,
    });
  },
};

const ROUND_TRIP_TESTS: StoreTests<AuditLogContext>[string] = {
  "append - every field reads back exactly: nulls stay null, a 200-character user agent, unicode": async ({
    append,
    draft,
    store,
  }) => {
    const userAgent =
      `Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) «Navigateur» 日本語 😀 ${"x".repeat(200)}`.slice(0, 200);
    const drafts = [
      draft({
        actorType: "system",
        actorId: null,
        userId: null,
        organizationId: null,
        sessionId: null,
        ip: null,
        userAgent: null,
        reason: null,
      }),
      draft({
        type: "member.role_changed",
        actorType: "admin",
        actorId: "admin-zoë",
        userId: "user-Ünïcode",
        organizationId: "org-ça-va",
        ip: "2001:db8::8a2e:370:7334",
        userAgent,
        reason: "rôle « owner » → 'member' \"quoted\" \\ back",
        at: 1_799_999_999_999,
      }),
      ...ACTOR_TYPES.map((actorType) => draft({ actorType })),
    ];
    const entries = await append(drafts);
    expect(entries.map(draftOf)).toEqual(drafts);
    const listed = await listAll(store);
    expect(listed).toEqual(entries);
    expect(listed[1]?.userAgent).toHaveLength(userAgent.length);
    expectChains(listed);
  },
  "append - the entries come out as copies: changing one changes nothing stored": async ({
    append,
    draft,
    store,
  }) => {
    const given = draft({ organizationId: "org-a" });
    const [entry] = await append([given]);
    const expected = { ...(entry as AuditEntry) };
    given.type = "changed.after";
    (entry as AuditEntry).reason = "changed";
    const [listed] = await store.list({ order: "asc", limit: 10 });
    (listed as AuditEntry).hash = "changed";
    expect(await store.list({ order: "asc", limit: 10 })).toEqual([expected]);
  },
};

/**
 * The executable contract of `AuditLogStore` (see its TSDoc in @portcullis/core). Each test needs
 * an empty store of its own, the deployment's chain starting at seq 1 (a fresh key prefix, schema
 * or table prefix per test for a store on a shared server). The drafts' `at` is all the time the
 * tests use, so no clock is moved or waited for.
 */
export const runAuditLogStoreSuite = defineStoreSuite("AuditLogStore", auditLogContext, {
  append: APPEND_TESTS,
  "round trip": ROUND_TRIP_TESTS,
  list: AUDIT_LIST_TESTS,
  sweepAudit: AUDIT_SWEEP_TESTS,
});
