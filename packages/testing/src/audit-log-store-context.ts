// The store of one AuditLogStore conformance test, and the drafts, seal and chain checks its tests
// share (audit-log-store-suite.ts, audit-log-store-lists.ts).
import { createHash, randomBytes } from "node:crypto";
import {
  type AuditDraft,
  type AuditEntry,
  type AuditLinks,
  type AuditLogStore,
  type AuditQuery,
  auditDraftOf,
} from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, storeContext } from "./store-fixture.js";

/** The time the drafts of a test start from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/**
 * The test seal: a sha256 (hex) of the JSON of the draft's fields (in `auditDraftOf`'s order) and
 * the links, in one order.
 */
export const testSeal = (draft: AuditDraft, links: AuditLinks): string =>
  createHash("sha256")
    .update(
      JSON.stringify([...Object.values(auditDraftOf(draft)), links.seq, links.prevHash, links.orgPrevHash]),
    )
    .digest("hex");

/** A seal call as the store made it: copies of what it was given, and what it got back. */
export interface SealCall {
  draft: AuditDraft;
  links: AuditLinks;
  hash: string;
}

/** `testSeal` that records each call (copies of its arguments) in `calls`. */
export function recordingSeal() {
  const calls: SealCall[] = [];
  const seal = (draft: AuditDraft, links: AuditLinks) => {
    const hash = testSeal(draft, links);
    calls.push({ draft: { ...draft }, links: { ...links }, hash });
    return hash;
  };
  return { seal, calls };
}

/** The draft's own fields of an entry (its links and hash left out). */
export const draftOf: (entry: AuditDraft) => AuditDraft = auditDraftOf;

/** Draft makers of one test: each draft gets a new id (32 lowercase hex) and an `at` 1 s later. */
function draftMaker() {
  let ticks = 0;
  return (overrides: Partial<AuditDraft> = {}): AuditDraft => ({
    id: randomBytes(16).toString("hex"),
    at: T0 + ++ticks * 1_000,
    type: "login.succeeded",
    actorType: "user",
    actorId: "user-ada",
    userId: "user-ada",
    organizationId: null,
    sessionId: "session-1",
    ip: "203.0.113.7",
    userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0",
    reason: "password",
    ...overrides,
  });
}

/** The whole log oldest first (`seq` ascending), read `size` at a time through `afterSeq`. */
export async function listAll(
  store: AuditLogStore,
  query: Partial<AuditQuery> = {},
  size = 1_000,
): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  for (let afterSeq: number | undefined; ; ) {
    const page = await store.list({ ...query, order: "asc", limit: size, afterSeq });
    all.push(...page);
    if (page.length < size) return all;
    afterSeq = (page.at(-1) as AuditEntry).seq;
  }
}

/**
 * Checks that `entries` (the whole log, `seq` ascending) form the two chains: seqs 1, 2, … without
 * a gap or a repeat; each `prevHash` the previous entry's hash ("" first); each `orgPrevHash` the
 * hash of its organization's previous entry ("" for its first, null without organization); each
 * `hash` the test seal of the entry's draft and links.
 */
export function expectChains(entries: AuditEntry[]): void {
  expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1));
  const organizationHeads = new Map<string, string>();
  let prevHash = "";
  for (const entry of entries) {
    const organizationId = entry.organizationId;
    const orgPrevHash = organizationId === null ? null : (organizationHeads.get(organizationId) ?? "");
    expect({ seq: entry.seq, prevHash: entry.prevHash, orgPrevHash: entry.orgPrevHash }).toEqual({
      seq: entry.seq,
      prevHash,
      orgPrevHash,
    });
    expect(entry.hash).toBe(testSeal(draftOf(entry), { seq: entry.seq, prevHash, orgPrevHash }));
    prevHash = entry.hash;
    if (organizationId !== null) organizationHeads.set(organizationId, entry.hash);
  }
}

/** The entry a draft becomes with `links` (and the test seal's hash of them). */
export const entryOf = (draft: AuditDraft, links: AuditLinks): AuditEntry => ({
  ...draftOf(draft),
  ...links,
  hash: testSeal(draft, links),
});

/** The store of one test (empty), a maker of drafts and a shortcut to append with the test seal. */
export function auditLogContext(fixture: StoreFixture<AuditLogStore>) {
  const draft = draftMaker();
  const append = (drafts: AuditDraft[]) => fixture.store.append(drafts, testSeal);
  return { ...storeContext(fixture), draft, append };
}

export type AuditLogContext = ReturnType<typeof auditLogContext>;
