import {
  sampleWebhookDelivery as deliveryOf,
  sampleWebhookEndpoint as endpointOf,
  runWebhookStoreSuite,
  SAMPLE_T0 as T0,
} from "@portcullis/testing";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { canStartRedis, keysUnder, redisForFile, withRedisToKeepBusy } from "./test-redis.js";

const NOW = T0 + 3_600_000;
const LEASE = { owner: "instance-a", now: NOW };
/** Room for every endpoint a test makes. */
const ROOMY = { maxPerScope: 100 };

// Two clients (two connections), as two processes would have; each test under a prefix of its own.
const file = redisForFile(2);
const { clients } = file;

const webhooksOn = (client: Redis, keyPrefix: string) =>
  createRedisStores({ client, keyPrefix, operationTimeoutMs: 2_000 }).webhooks;

runWebhookStoreSuite({ name: "redis", create: () => ({ store: webhooksOn(file.client, file.prefix()) }) });

describe("redis webhooks: keys", () => {
  it("every key is under the {webhooks} hash tag, and deleting the endpoints leaves none behind", async () => {
    const keyPrefix = file.prefix();
    const client = clients[0] as Redis;
    const store = webhooksOn(client, keyPrefix);
    const endpoints = [endpointOf(), endpointOf({ organizationId: "org-a" })];
    for (const endpoint of endpoints) {
      expect(await store.createEndpoint(endpoint, ROOMY)).toBe("created");
      expect(await store.tryLease(endpoint.id, "instance-a", NOW, NOW + 30_000)).toBe(true);
      const ordered = deliveryOf(endpoint.id, { redelivery: false });
      expect(await store.advance(endpoint.id, LEASE, 0, 1, [ordered])).toBe(true);
      const done = deliveryOf(endpoint.id);
      await store.addDelivery(done);
      const attempt = { status: "succeeded", attempts: 1, lastAttemptAt: NOW } as const;
      const outcome = { ...attempt, lastStatusCode: 200, lastError: null, nextAttemptAt: null };
      expect(await store.recordAttempt(endpoint.id, LEASE, done.id, outcome, null)).toBe(true);
    }
    const keys = await keysUnder(client, keyPrefix);
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(key.startsWith(`${keyPrefix}{webhooks}:`)).toBe(true);
    for (const endpoint of endpoints) expect(await store.deleteEndpoint(endpoint.id)).toBe(true);
    expect(await keysUnder(client, keyPrefix)).toEqual([]);
  });

  it("an empty list stays a list and large numbers stay exact through the scripts", async () => {
    const keyPrefix = file.prefix();
    const store = webhooksOn(clients[0] as Redis, keyPrefix);
    const endpoint = endpointOf({ events: [], secrets: [], cursor: 9_007_199_254_740_000 });
    expect(await store.createEndpoint(endpoint, ROOMY)).toBe("created");
    const updated = await store.updateEndpoint(endpoint.id, { url: "https://other.example.com/" });
    expect(updated).toEqual({ ...endpoint, url: "https://other.example.com/" });
    expect(await store.tryLease(endpoint.id, "instance-a", NOW, NOW + 30_000)).toBe(true);
    const to = 9_007_199_254_740_991;
    expect(await store.advance(endpoint.id, LEASE, endpoint.cursor, to, [])).toBe(true);
    expect((await store.findEndpoint(endpoint.id))?.cursor).toBe(to);
  });
});

describe("redis webhooks: several processes", () => {
  it("tryLease - 30 callers over 2 clients (6 stores) on one free lease: exactly one wins", async () => {
    const keyPrefix = file.prefix();
    const stores = clients.flatMap((client) => [0, 1, 2].map(() => webhooksOn(client, keyPrefix)));
    const endpoint = endpointOf();
    expect(await stores[0]?.createEndpoint(endpoint, ROOMY)).toBe("created");
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        stores[n % stores.length]?.tryLease(endpoint.id, `instance-${n}`, NOW, NOW + 30_000),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const advanced = await Promise.all(
      Array.from({ length: 30 }, (_, n) =>
        stores[n % stores.length]?.advance(endpoint.id, { owner: `instance-${n}`, now: NOW }, 0, n + 1, []),
      ),
    );
    expect(advanced.filter(Boolean)).toHaveLength(1);
    expect(advanced.indexOf(true)).toBe(results.indexOf(true));
    expect((await stores[5]?.findEndpoint(endpoint.id))?.cursor).toBe(results.indexOf(true) + 1);
  });
});

describe("redis webhooks: sweeping", () => {
  it("sweepDeliveries - 1,100 finished deliveries go in batches of 500; pending ones and newer ones stay", async () => {
    const keyPrefix = file.prefix();
    const client = clients[0] as Redis;
    const store = webhooksOn(client, keyPrefix);
    const endpoint = endpointOf();
    expect(await store.createEndpoint(endpoint, ROOMY)).toBe("created");
    expect(await store.tryLease(endpoint.id, "instance-a", NOW, NOW + 30_000)).toBe(true);
    const failed = {
      status: "failed",
      attempts: 8,
      lastAttemptAt: NOW,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      nextAttemptAt: null,
    } as const;
    const old = Array.from({ length: 1_100 }, (_, i) => deliveryOf(endpoint.id, { createdAt: T0 + i }));
    for (const delivery of old) {
      await store.addDelivery(delivery);
      expect(await store.recordAttempt(endpoint.id, LEASE, delivery.id, failed, null)).toBe(true);
    }
    const pending = deliveryOf(endpoint.id, { createdAt: T0 });
    const recent = deliveryOf(endpoint.id, { createdAt: NOW });
    await store.addDelivery(pending);
    await store.addDelivery(recent);
    expect(await store.recordAttempt(endpoint.id, LEASE, recent.id, failed, null)).toBe(true);
    expect(await store.sweepDeliveries(NOW)).toBe(1_100);
    expect(await store.listDeliveries(endpoint.id, { limit: 1_000 })).toEqual([
      { ...recent, ...failed },
      pending,
    ]);
    expect(await store.sweepDeliveries(NOW)).toBe(0);
    expect(await store.sweepDeliveries(Number.POSITIVE_INFINITY)).toBe(1);
    expect(await store.pendingDeliveries(endpoint.id)).toEqual([pending]);
  }, 30_000);
});

describe("redis webhooks: when Redis fails", () => {
  it.skipIf(!canStartRedis)(
    "advance - Redis too busy to answer within the bound: rejects in time, and the late script writes nothing",
    () =>
      withRedisToKeepBusy(async ({ client, busyFor }) => {
        const store = createRedisStores({
          client,
          keyPrefix: "webhooks-late:",
          operationTimeoutMs: 500,
        }).webhooks;
        const endpoint = endpointOf();
        expect(await store.createEndpoint(endpoint, ROOMY)).toBe("created");
        expect(await store.tryLease(endpoint.id, "instance-a", NOW, NOW + 30_000)).toBe(true);
        // Redis turns busy (a 1.5 s script) just before the advance's script arrives.
        const busy = busyFor(1_500_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = Date.now();
        const delivery = deliveryOf(endpoint.id, { redelivery: false });
        await expect(store.advance(endpoint.id, LEASE, 0, 1, [delivery])).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(1_200);
        await busy;
        expect((await store.findEndpoint(endpoint.id))?.cursor).toBe(0);
        expect(await store.findDelivery(endpoint.id, delivery.id)).toBeNull();
        expect(await store.advance(endpoint.id, LEASE, 0, 1, [delivery])).toBe(true);
        expect(await store.findDelivery(endpoint.id, delivery.id)).toEqual(delivery);
      }),
    10_000,
  );
});
