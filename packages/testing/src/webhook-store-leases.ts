// The WebhookStore conformance tests of the leases (tryLease, releaseLease) and of advance (with batches).
import type { WebhookDelivery } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, type StoreTests } from "./store-fixture.js";
import {
  ALL,
  attemptOf,
  LEASE_MS,
  NOW,
  newestFirst,
  newId,
  snapshotOf,
  type WebhookContext,
} from "./webhook-store-context.js";

const UNTIL = NOW + LEASE_MS;

export const WEBHOOK_LEASE_TESTS: StoreTests<WebhookContext>[string] = {
  "tryLease - takes a free lease; another owner is then refused until it expires": async ({
    store,
    stored,
  }) => {
    const made = await stored();
    expect(await store.tryLease(made.id, "instance-a", NOW, UNTIL)).toBe(true);
    expect(await store.tryLease(made.id, "instance-b", NOW, UNTIL + 5_000)).toBe(false);
    expect(await store.tryLease(made.id, "instance-b", UNTIL - 1, UNTIL + 5_000)).toBe(false);
  },
  "tryLease - the owner renews its own lease, which then lasts until the new until": async ({
    store,
    leased,
  }) => {
    const { made } = await leased(); // instance-a's until UNTIL
    expect(await store.tryLease(made.id, "instance-a", NOW + 10_000, UNTIL + 10_000)).toBe(true);
    expect(await store.tryLease(made.id, "instance-b", UNTIL + 9_999, UNTIL + 60_000)).toBe(false);
    expect(
      await store.advance(made.id, { owner: "instance-a", now: UNTIL + 9_999 }, made.cursor, 50, []),
    ).toBe(true);
    // An expired lease of its own is renewed too.
    expect(await store.tryLease(made.id, "instance-a", UNTIL + 20_000, UNTIL + 50_000)).toBe(true);
    expect(await store.tryLease(made.id, "instance-b", UNTIL + 49_999, UNTIL + 60_000)).toBe(false);
  },
  "tryLease - an expired lease (its until at or before now) goes to the next owner; the old one loses it":
    async ({ store, leased }) => {
      const { made } = await leased(); // instance-a's until UNTIL
      expect(await store.tryLease(made.id, "instance-b", UNTIL, UNTIL + LEASE_MS)).toBe(true);
      expect(await store.advance(made.id, { owner: "instance-a", now: UNTIL }, made.cursor, 50, [])).toBe(
        false,
      );
      expect(await store.tryLease(made.id, "instance-a", UNTIL + 1, UNTIL + LEASE_MS)).toBe(false);
      expect(await store.advance(made.id, { owner: "instance-b", now: UNTIL }, made.cursor, 50, [])).toBe(
        true,
      );
    },
  "tryLease - a refused call leaves the holder's lease as it was": async ({ store, leased }) => {
    const { made } = await leased(); // instance-a's until UNTIL
    expect(await store.tryLease(made.id, "instance-b", NOW + 1, UNTIL + 60_000)).toBe(false);
    // Still instance-a's until UNTIL, and no longer: the refused call did not extend it.
    expect(await store.advance(made.id, { owner: "instance-a", now: UNTIL - 1 }, made.cursor, 50, [])).toBe(
      true,
    );
    expect(await store.tryLease(made.id, "instance-c", UNTIL, UNTIL + LEASE_MS)).toBe(true);
  },
  "tryLease - false for an endpoint that does not exist": async ({ store, stored }) => {
    await stored();
    expect(await store.tryLease(newId(), "instance-a", NOW, UNTIL)).toBe(false);
  },
  "tryLease - each endpoint has its own lease": async ({ store, stored }) => {
    const first = await stored();
    const second = await stored();
    expect(await store.tryLease(first.id, "instance-a", NOW, UNTIL)).toBe(true);
    expect(await store.tryLease(second.id, "instance-b", NOW, UNTIL)).toBe(true);
    expect(await store.tryLease(first.id, "instance-b", NOW, UNTIL)).toBe(false);
    expect(await store.tryLease(second.id, "instance-a", NOW, UNTIL)).toBe(false);
  },
  "tryLease - 20 concurrent calls of different owners on a free lease: exactly one gets it": async ({
    store,
    stored,
  }) => {
    const made = await stored();
    const results = await concurrently(20, (n) => store.tryLease(made.id, `instance-${n}`, NOW, UNTIL));
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = `instance-${results.indexOf(true)}`;
    expect(await store.tryLease(made.id, winner, NOW + 1, UNTIL)).toBe(true);
    const lease = (owner: string) => ({ owner, now: NOW + 1 });
    for (let n = 0; n < 20; n++) {
      const owner = `instance-${n}`;
      if (owner !== winner)
        expect(await store.advance(made.id, lease(owner), made.cursor, 50, [])).toBe(false);
    }
    expect(await store.advance(made.id, lease(winner), made.cursor, 50, [])).toBe(true);
  },
  "tryLease - 20 concurrent calls of different owners on an expired lease: exactly one takes it over":
    async ({ store, leased }) => {
      const { made } = await leased({}, "instance-old"); // until UNTIL
      const later = UNTIL + 1_000;
      const results = await concurrently(20, (n) =>
        store.tryLease(made.id, `instance-${n}`, later, later + LEASE_MS),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.tryLease(made.id, "instance-old", later, later + LEASE_MS)).toBe(false);
    },
  "releaseLease - the owner gives it up: another owner takes it, the old one can no longer write": async ({
    store,
    leased,
  }) => {
    const { made } = await leased(); // instance-a's until UNTIL
    await store.releaseLease(made.id, "instance-a");
    expect(await store.advance(made.id, { owner: "instance-a", now: NOW }, made.cursor, 50, [])).toBe(false);
    expect(await store.tryLease(made.id, "instance-b", NOW, UNTIL)).toBe(true);
  },
  "releaseLease - a no-op for another owner, a free lease or an unknown endpoint": async ({
    store,
    stored,
  }) => {
    const made = await stored();
    await store.releaseLease(made.id, "instance-a");
    await store.releaseLease(newId(), "instance-a");
    expect(await store.tryLease(made.id, "instance-a", NOW, UNTIL)).toBe(true);
    await store.releaseLease(made.id, "instance-b");
    expect(await store.tryLease(made.id, "instance-b", NOW, UNTIL)).toBe(false);
    expect(await store.advance(made.id, { owner: "instance-a", now: NOW }, made.cursor, 50, [])).toBe(true);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: 50 });
  },
};

export const WEBHOOK_ADVANCE_TESTS: StoreTests<WebhookContext>[string] = {
  "advance - moves the cursor from `from` to `to` and adds the delivery, pending, under the lease": async ({
    store,
    leased,
    delivery,
  }) => {
    const { made, held } = await leased({ cursor: 41 });
    const first = delivery(made.id, { seq: 42 });
    expect(await store.advance(made.id, held, 41, 42, [structuredClone(first)])).toBe(true);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: 42 });
    expect(await store.findDelivery(made.id, first.id)).toEqual(first);
    const second = delivery(made.id, { seq: 57, type: "member.role_changed" });
    expect(await store.advance(made.id, held, 42, 57, [structuredClone(second)])).toBe(true);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: 57 });
    expect(await store.pendingDeliveries(made.id)).toEqual([first, second]);
    expect(await store.listDeliveries(made.id, ALL)).toEqual([second, first]);
  },
  "advance - adds a batch's deliveries as given (sent ones finished, the last one pending) in one write":
    async ({ store, leased, delivery }) => {
      const { made, held } = await leased({ cursor: 41 });
      const sent = [42, 45, 46].map((seq) =>
        delivery(made.id, { seq, ...attemptOf({ lastAttemptAt: NOW }) }),
      );
      const retry = attemptOf({
        status: "pending",
        lastStatusCode: 503,
        lastError: "HTTP 503",
        nextAttemptAt: NOW + 5_000,
      });
      const waiting = delivery(made.id, { seq: 48, ...retry });
      const batch = [...sent, waiting];
      expect(await store.advance(made.id, held, 41, 48, structuredClone(batch))).toBe(true);
      expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: 48 });
      expect(await store.listDeliveries(made.id, ALL)).toEqual(newestFirst(batch));
      expect(await store.pendingDeliveries(made.id)).toEqual([waiting]);
      // The sent ones are finished: the sweep removes them, and leaves the pending one.
      expect(await store.sweepDeliveries(waiting.createdAt + 1)).toBe(3);
      expect(await store.listDeliveries(made.id, ALL)).toEqual([waiting]);
    },
  "advance - a batch of 600 deliveries is written whole": async ({ store, leased, delivery }) => {
    const { made, held } = await leased({ cursor: 0 });
    const batch = Array.from({ length: 600 }, (_, n) => delivery(made.id, { seq: n + 1, ...attemptOf() }));
    expect(await store.advance(made.id, held, 0, 600, batch)).toBe(true);
    expect(await store.listDeliveries(made.id, ALL)).toEqual(newestFirst(batch));
    expect((await store.findEndpoint(made.id))?.cursor).toBe(600);
  },
  "advance - with `disable`, disables the endpoint with that reason in the same write": async ({
    store,
    leased,
    delivery,
  }) => {
    const { made, held } = await leased({ cursor: 41 });
    const gone = attemptOf({ status: "failed", lastStatusCode: 410, lastError: "HTTP 410" });
    const last = delivery(made.id, { seq: 43, ...gone });
    expect(await store.advance(made.id, held, 41, 43, [structuredClone(last)], "gone")).toBe(true);
    const disabled = { ...made, cursor: 43, enabled: false, disabledReason: "gone" };
    expect(await store.findEndpoint(made.id)).toEqual(disabled);
    expect(await store.findDelivery(made.id, last.id)).toEqual(last);
    expect(await store.pendingDeliveries(made.id)).toEqual([]);
  },
  "advance - false and nothing written when one delivery of the batch is another endpoint's": async ({
    store,
    leased,
    stored,
    delivery,
  }) => {
    const { made, held } = await leased({ cursor: 41 });
    const other = await stored();
    const before = await snapshotOf(store, made.id);
    const batch = [delivery(made.id, { seq: 42 }), delivery(other.id, { seq: 43 })];
    expect(await store.advance(made.id, held, 41, 43, batch, "gone")).toBe(false);
    expect(await snapshotOf(store, made.id)).toEqual(before);
    expect(await snapshotOf(store, other.id)).toEqual({ endpoint: other, deliveries: [], pending: [] });
  },
  "advance - without a delivery moves the cursor only": async ({ store, leased }) => {
    const { made, held } = await leased({ cursor: 0 });
    expect(await store.advance(made.id, held, 0, 12, [])).toBe(true);
    expect(await store.advance(made.id, held, 12, 13, [])).toBe(true);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: 13 });
    expect(await store.listDeliveries(made.id, ALL)).toEqual([]);
  },
  "advance - false and nothing written when the cursor is not at `from`": async ({
    store,
    leased,
    delivery,
  }) => {
    const { made, held } = await leased({ cursor: 41 });
    const before = await snapshotOf(store, made.id);
    for (const from of [40, 42, 0]) {
      expect(await store.advance(made.id, held, from, 60, [delivery(made.id)])).toBe(false);
    }
    expect(await snapshotOf(store, made.id)).toEqual(before);
  },
  "advance - false and nothing written without the lease: none, another owner's, expired, released": async ({
    store,
    stored,
    advanced,
    delivery,
  }) => {
    const made = await stored();
    const free = await stored();
    await advanced(made.id); // instance-a holds made's lease until NOW + LEASE_MS
    const before = await snapshotOf(store, made.id);
    const beforeFree = await snapshotOf(store, free.id);
    const attempt = (endpointId: string, owner: string, now: number) =>
      store.advance(endpointId, { owner, now }, before.endpoint?.cursor ?? 0, 999, [delivery(endpointId)]);
    expect(await attempt(free.id, "instance-a", NOW)).toBe(false);
    expect(await attempt(made.id, "instance-b", NOW)).toBe(false);
    expect(await attempt(made.id, "instance-a", UNTIL)).toBe(false);
    expect(await attempt(made.id, "instance-a", UNTIL + 60_000)).toBe(false);
    await store.releaseLease(made.id, "instance-a");
    expect(await attempt(made.id, "instance-a", NOW)).toBe(false);
    expect(await snapshotOf(store, made.id)).toEqual(before);
    expect(await snapshotOf(store, free.id)).toEqual(beforeFree);
  },
  "advance - false for an endpoint that does not exist, and nothing is made": async ({ store, delivery }) => {
    const id = newId();
    const given = delivery(id);
    expect(await store.advance(id, { owner: "instance-a", now: NOW }, 0, 1, [given])).toBe(false);
    expect(await store.findEndpoint(id)).toBeNull();
    expect(await store.findDelivery(id, given.id)).toBeNull();
    expect(await store.listEndpoints(undefined)).toEqual([]);
  },
  "advance - 20 concurrent calls from the same `from`: exactly one moves the cursor and adds its delivery":
    async ({ store, leased, delivery }) => {
      const { made, held } = await leased({ cursor: 41 });
      const deliveries = Array.from({ length: 20 }, (_, n) => delivery(made.id, { seq: 42 + n }));
      const results = await concurrently(20, (n) => {
        const one = deliveries[n] as WebhookDelivery;
        return store.advance(made.id, held, 41, one.seq, [structuredClone(one)]);
      });
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = deliveries[results.indexOf(true)] as WebhookDelivery;
      expect((await store.findEndpoint(made.id))?.cursor).toBe(winner.seq);
      expect(await store.listDeliveries(made.id, ALL)).toEqual([winner]);
      for (const one of deliveries) {
        expect(await store.findDelivery(made.id, one.id)).toEqual(one === winner ? winner : null);
      }
    },
};
