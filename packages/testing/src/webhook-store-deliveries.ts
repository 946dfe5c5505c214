// The WebhookStore conformance tests of the deliveries' reads (addDelivery, pendingDeliveries,
// listDeliveries, findDelivery) and of sweepDeliveries.
import type { WebhookDelivery, WebhookDeliveryStatus } from "@portcullis/core";
import { expect } from "vitest";
import type { StoreTests } from "./store-fixture.js";
import {
  ALL,
  attemptOf,
  NOW,
  newestFirst,
  newId,
  oldestFirst,
  ROOMY,
  T0,
  type WebhookContext,
} from "./webhook-store-context.js";

/** `deliveries` read `limit` at a time through `before`, newest first. */
async function pages(context: WebhookContext, endpointId: string, limit: number) {
  const read: WebhookDelivery[][] = [];
  for (let before: string | undefined; ; ) {
    const page = await context.store.listDeliveries(endpointId, { limit, before });
    read.push(page);
    if (page.length < limit) return read;
    before = (page.at(-1) as WebhookDelivery).id;
  }
}

/** Adds a delivery made at `createdAt` and records an attempt that leaves it `status`. */
async function finished(
  context: WebhookContext,
  endpointId: string,
  status: WebhookDeliveryStatus,
  createdAt: number,
) {
  const made = await context.added(endpointId, { createdAt });
  const lease = await context.lease(endpointId);
  const attempt = attemptOf({ status, nextAttemptAt: status === "pending" ? NOW + 1_000 : null });
  expect(await context.store.recordAttempt(endpointId, lease, made.id, attempt, null)).toBe(true);
  return { ...made, ...attempt };
}

export const WEBHOOK_DELIVERY_TESTS: StoreTests<WebhookContext>[string] = {
  "addDelivery - adds a delivery beside the order: every field as given, the cursor unmoved": async ({
    store,
    withDelivery,
    delivery,
  }) => {
    const { made, delivery: original } = await withDelivery();
    // A redelivery carries the same audit entry as the delivery it repeats.
    const redelivery = delivery(made.id, {
      entryId: original.entryId,
      seq: original.seq,
      type: "member.role_changed",
      redelivery: true,
      attempts: 2,
      lastAttemptAt: T0 + 7,
      lastStatusCode: 500,
      lastError: "HTTP 500 — « erreur »",
      nextAttemptAt: null,
    });
    await store.addDelivery(structuredClone(redelivery));
    expect(await store.findDelivery(made.id, redelivery.id)).toEqual(redelivery);
    expect(await store.findDelivery(made.id, original.id)).toEqual(original);
    expect(await store.pendingDeliveries(made.id)).toEqual([original, redelivery]);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: original.seq });
  },
  "addDelivery - nothing when the endpoint is gone (or never was)": async ({ store, stored, delivery }) => {
    const gone = await stored();
    expect(await store.deleteEndpoint(gone.id)).toBe(true);
    const late = delivery(gone.id, { redelivery: true });
    await store.addDelivery(structuredClone(late));
    const never = delivery(newId(), { redelivery: true });
    await store.addDelivery(structuredClone(never));
    expect(await store.findDelivery(gone.id, late.id)).toBeNull();
    expect(await store.findDelivery(never.endpointId, never.id)).toBeNull();
    expect(await store.findEndpoint(never.endpointId)).toBeNull();
    // Made again with the same id (which the core never does), the endpoint has no deliveries.
    expect(await store.createEndpoint(structuredClone(gone), ROOMY)).toBe("created");
    expect(await store.listDeliveries(gone.id, ALL)).toEqual([]);
    expect(await store.pendingDeliveries(gone.id)).toEqual([]);
  },
  "pendingDeliveries - the endpoint's pending ones only, by createdAt then id": async (context) => {
    const { store, stored, advanced, added } = context;
    const made = await stored();
    const other = await stored();
    const pending = [
      await advanced(made.id, { createdAt: T0 + 50_000 }),
      await added(made.id, { createdAt: T0 + 10_000 }),
      await advanced(made.id, { createdAt: T0 + 30_000 }),
      await added(made.id, { createdAt: T0 + 30_000 }),
      await added(made.id, { createdAt: T0 + 30_000 }),
      await added(made.id, { createdAt: T0 + 20_000 }),
    ];
    await finished(context, made.id, "succeeded", T0 + 15_000);
    await finished(context, made.id, "failed", T0 + 25_000);
    pending.push(await finished(context, made.id, "pending", T0 + 40_000)); // a retry still due
    await advanced(other.id, { createdAt: T0 + 1 });
    expect(await store.pendingDeliveries(made.id)).toEqual(oldestFirst(pending));
    expect(await store.pendingDeliveries(newId())).toEqual([]);
  },
  "listDeliveries - every status, newest first (createdAt, then id), at most `limit`": async (context) => {
    const { store, stored, advanced, added } = context;
    const made = await stored();
    const other = await stored();
    await advanced(other.id);
    const all = [
      await advanced(made.id, { createdAt: T0 + 10_000 }),
      await finished(context, made.id, "succeeded", T0 + 20_000),
      await added(made.id, { createdAt: T0 + 20_000 }),
      await finished(context, made.id, "failed", T0 + 20_000),
      await advanced(made.id, { createdAt: T0 + 5_000 }),
      await added(made.id, { createdAt: T0 + 40_000 }),
    ];
    const expected = newestFirst(all);
    expect(await store.listDeliveries(made.id, ALL)).toEqual(expected);
    expect(await store.listDeliveries(made.id, { limit: 6 })).toEqual(expected);
    expect(await store.listDeliveries(made.id, { limit: 4 })).toEqual(expected.slice(0, 4));
    expect(await store.listDeliveries(made.id, { limit: 1, before: undefined })).toEqual(
      expected.slice(0, 1),
    );
    expect(await store.listDeliveries(newId(), ALL)).toEqual([]);
  },
  "listDeliveries - `before` a delivery: the ones after it in that order, so pages follow each other": async (
    context,
  ) => {
    const { store, stored, added } = context;
    const made = await stored();
    const all: WebhookDelivery[] = [];
    // Several made in the same millisecond: a page may end in the middle of them.
    for (const offset of [3, 1, 1, 1, 2, 1, 4, 2, 1])
      all.push(await added(made.id, { createdAt: T0 + offset * 1_000 }));
    const expected = newestFirst(all);
    for (const [index, one] of expected.entries()) {
      expect(await store.listDeliveries(made.id, { limit: 3, before: one.id })).toEqual(
        expected.slice(index + 1, index + 4),
      );
    }
    for (const limit of [1, 2, 4]) {
      const read = await pages(context, made.id, limit);
      expect(read.flat()).toEqual(expected);
      expect(read.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    }
  },
  "listDeliveries - none when `before` is not one of the endpoint's deliveries": async ({
    store,
    stored,
    added,
  }) => {
    const made = await stored();
    const other = await stored();
    await added(made.id);
    const theirs = await added(other.id);
    expect(await store.listDeliveries(made.id, { limit: 10, before: newId() })).toEqual([]);
    expect(await store.listDeliveries(made.id, { limit: 10, before: theirs.id })).toEqual([]);
  },
  "findDelivery - the endpoint's delivery; null for another endpoint's or an unknown id": async ({
    store,
    twoWithDeliveries,
  }) => {
    const { made, other, mine, redelivery, theirs } = await twoWithDeliveries();
    expect(await store.findDelivery(made.id, mine.id)).toEqual(mine);
    expect(await store.findDelivery(made.id, redelivery.id)).toEqual(redelivery);
    expect(await store.findDelivery(other.id, theirs.id)).toEqual(theirs);
    expect(await store.findDelivery(made.id, theirs.id)).toBeNull();
    expect(await store.findDelivery(other.id, mine.id)).toBeNull();
    expect(await store.findDelivery(made.id, newId())).toBeNull();
    expect(await store.findDelivery(newId(), mine.id)).toBeNull();
  },
};

export const WEBHOOK_SWEEP_TESTS: StoreTests<WebhookContext>[string] = {
  "sweepDeliveries - removes the finished ones made before olderThan, of every endpoint; resolves to how many":
    async (context) => {
      const { store, stored, advanced } = context;
      const first = await stored();
      const second = await stored({ organizationId: "org-sweep" });
      const cut = T0 + 100_000;
      const swept = [
        await finished(context, first.id, "succeeded", cut - 1),
        await finished(context, first.id, "failed", T0 + 2_000),
        await finished(context, second.id, "succeeded", T0 + 3_000),
      ];
      const kept = [
        await advanced(first.id, { createdAt: T0 + 1_000 }), // pending, however old
        await finished(context, first.id, "pending", T0 + 4_000), // a retry still due
        await finished(context, first.id, "succeeded", cut), // not before olderThan
        await finished(context, second.id, "failed", cut + 60_000),
        await advanced(second.id, { createdAt: cut + 1 }),
      ];
      const endpoints = await store.listEndpoints(undefined);
      expect(await store.sweepDeliveries(cut)).toBe(swept.length);
      for (const one of swept) expect(await store.findDelivery(one.endpointId, one.id)).toBeNull();
      for (const one of kept) expect(await store.findDelivery(one.endpointId, one.id)).toEqual(one);
      const keptOf = (endpointId: string) => newestFirst(kept.filter((one) => one.endpointId === endpointId));
      expect(await store.listDeliveries(first.id, ALL)).toEqual(keptOf(first.id));
      expect(await store.listDeliveries(second.id, ALL)).toEqual(keptOf(second.id));
      expect(await store.listEndpoints(undefined)).toEqual(endpoints);
      expect(await store.sweepDeliveries(cut)).toBe(0);
    },
  "sweepDeliveries - 0 when nothing is finished and old enough": async (context) => {
    const { store, withDelivery } = context;
    expect(await store.sweepDeliveries(NOW)).toBe(0);
    const { made, delivery: pending } = await withDelivery({ createdAt: T0 });
    const recent = await finished(context, made.id, "succeeded", NOW);
    expect(await store.sweepDeliveries(NOW)).toBe(0);
    expect(await store.listDeliveries(made.id, ALL)).toEqual([recent, pending]);
  },
};
