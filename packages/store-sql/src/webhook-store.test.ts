import type { WebhookDelivery, WebhookEndpoint, WebhookStore } from "@portcullis/core";
import {
  runWebhookStoreSuite,
  sampleWebhookDelivery,
  sampleWebhookEndpoint,
  succeededWebhookAttempt,
  SAMPLE_T0 as T0,
} from "@portcullis/testing";
import { describe, expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { freshWebhookStore } from "./test-databases.js";
import { databasesForFile, onBothPools, onEachDialect, twoPoolTests } from "./test-two-pools.js";
import { checkWebhooksUpgrade } from "./webhook-upgrade.js";

// The webhook store's leases and endpoint limits written from two pools at once (two connections to one SQLite file,
// two PostgreSQL pools, two MariaDB pools), which the conformance suite (run on each dialect by
// `runSqlStoreSuites`) cannot do through one; the suite with sweeps of one row a batch; then the
// upgrade to 0016 on each dialect.
const databases = await databasesForFile("webhooks");

// Sweeps of one row a batch: the batches follow each other, for each status, until one deletes nothing.
runWebhookStoreSuite({
  name: "postgres, sweeps of 1",
  create: () => freshWebhookStore(databases.postgres.db, 1),
});

const LEASE_MS = 30_000;

/** Delivery `seq` of `endpointId`, made and due at `T0 + seq`. */
const delivery = (endpointId: string, seq: number, redelivery = false): WebhookDelivery =>
  sampleWebhookDelivery(endpointId, {
    entryId: `entry-${seq}`,
    seq,
    createdAt: T0 + seq,
    nextAttemptAt: T0 + seq,
    redelivery,
  });

/** A new endpoint (`sampleWebhookEndpoint` with `overrides`) created in `store`: its id. */
async function createdEndpoint(
  store: WebhookStore,
  overrides: Partial<WebhookEndpoint> = {},
): Promise<string> {
  const endpoint = sampleWebhookEndpoint(overrides);
  await store.createEndpoint(endpoint, { maxPerScope: 100 });
  return endpoint.id;
}

/** The webhook store on new tables through `a`, and the same tables' store through `b`. */
const onTwoPools = (
  a: AnyKysely,
  b: AnyKysely,
  run: (stores: [WebhookStore, WebhookStore]) => Promise<void>,
) =>
  onBothPools(freshWebhookStore(a), (tablePrefix) => createSqlStores({ db: b, tablePrefix }).webhooks, run);

/** `count` calls of `call`, started together, alternating between the two stores. */
const racing = <T>(
  stores: WebhookStore[],
  count: number,
  call: (store: WebhookStore, n: number) => Promise<T>,
) => Promise.all(Array.from({ length: count }, (_, n) => call(stores[n % stores.length] as WebhookStore, n)));

/**
 * Five rounds on one endpoint, each call of a round alternating between `a`'s pool and `b`'s:
 * 20 owners race for the lease (free in the first round, expired in the next ones): exactly one
 * gets it; 20 advances by the holder from the same cursor: exactly one moves it and adds its
 * delivery; the previous round's holder, racing the new holder's attempt on that delivery, is
 * refused (nothing of its attempt, nor its disabling, is written).
 */
async function checkLeaseRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    const [store] = stores;
    const id = await createdEndpoint(store);
    let previous: string | null = null;
    const kept: WebhookDelivery[] = [];
    for (let round = 0; round < 5; round++) {
      const now = T0 + round * LEASE_MS;
      const owners = await racing(stores, 20, (one, n) =>
        one.tryLease(id, `r${round}-${n}`, now, now + LEASE_MS),
      );
      expect(owners.filter(Boolean)).toHaveLength(1);
      const owner = `r${round}-${owners.indexOf(true)}`;
      const from = round * 100;
      const made = Array.from({ length: 20 }, (_, n) => delivery(id, from + n + 1));
      const moved = await racing(stores, 20, (one, n) =>
        one.advance(id, { owner, now }, from, from + 100, [made[n] as WebhookDelivery]),
      );
      expect(moved.filter(Boolean)).toHaveLength(1);
      const winner = made[moved.indexOf(true)] as WebhookDelivery;
      const attempt = succeededWebhookAttempt(now);
      const [mine, stale] = await Promise.all([
        stores[0].recordAttempt(id, { owner, now }, winner.id, attempt, null),
        previous === null
          ? Promise.resolve(false)
          : stores[1].recordAttempt(
              id,
              { owner: previous, now },
              winner.id,
              { ...attempt, status: "failed" },
              "failing",
            ),
      ]);
      expect([mine, stale]).toEqual([true, false]);
      kept.push({ ...winner, ...attempt });
      previous = owner;
    }
    expect(await store.findEndpoint(id)).toMatchObject({ cursor: 500, enabled: true, disabledReason: null });
    expect(await store.listDeliveries(id, { limit: 100 })).toEqual([...kept].reverse());
  });
}

/**
 * Redeliveries added from both pools while the endpoint is deleted: each lands before the delete
 * (and goes with it) or finds the endpoint gone; none is left behind.
 */
async function checkDeleteRace(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    const [store] = stores;
    for (let round = 0; round < 3; round++) {
      const id = await createdEndpoint(store, { organizationId: "org", secrets: [] });
      const made = Array.from({ length: 20 }, (_, n) => delivery(id, n + 1, true));
      const [deleted] = await Promise.all([
        stores[1].deleteEndpoint(id),
        racing(stores, 20, (one, n) => one.addDelivery(made[n] as WebhookDelivery)),
      ]);
      expect(deleted).toBe(true);
      expect(await store.listDeliveries(id, { limit: 100 })).toEqual([]);
      for (const one of made) expect(await store.findDelivery(id, one.id)).toBeNull();
    }
  });
}

/**
 * 20 creations in one organization and 20 of the deployment's, started together, alternating
 * between `a`'s pool and `b`'s, with `maxPerScope` 3: exactly 3 of each scope are created, and
 * those are the scope's endpoints.
 */
async function checkCreateRace(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    const [store] = stores;
    const made = Array.from({ length: 40 }, (_, n) =>
      sampleWebhookEndpoint({ organizationId: n % 2 === 0 ? "org" : null, secrets: [], createdAt: T0 + n }),
    );
    const outcomes = await racing(stores, 40, (one, n) =>
      one.createEndpoint(made[n] as WebhookEndpoint, { maxPerScope: 3 }),
    );
    for (const scope of ["org", null]) {
      const created = made.filter(
        (endpoint, n) => endpoint.organizationId === scope && outcomes[n] === "created",
      );
      expect(created).toHaveLength(3);
      expect(await store.listEndpoints(scope)).toEqual(created);
    }
    expect(outcomes.filter((outcome) => outcome === "limit-reached")).toHaveLength(34);
  });
}

describe("webhooks: leases from two pools at once", () => {
  twoPoolTests(
    databases,
    (through) =>
      `tryLease, advance, recordAttempt, deleteEndpoint, createEndpoint - races through ${through}: one winner each`,
    async (a, b) => {
      await checkLeaseRaces(a, b);
      await checkDeleteRace(a, b);
      await checkCreateRace(a, b);
    },
  );
});

describe("webhooks: upgrade", () => {
  onEachDialect(
    databases,
    "migrate - 0016 adds the webhook tables beside the audit log, and nothing else changes",
    checkWebhooksUpgrade,
  );
});
