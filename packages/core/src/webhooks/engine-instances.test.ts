import { afterEach, describe, expect, it } from "vitest";
import type { WebhookStore } from "../ports/webhook-store.js";
import {
  createLineLogger,
  createTestServers,
  createWebhookEngineFixture,
  sealedSecret,
} from "../test-support.js";
import { newWebhookSecret } from "./signing.js";

const servers = createTestServers();
afterEach(() => servers.closeAll());

/** A receiver on 127.0.0.1 keeping the `webhook-id` of each message; `hold(n)` may delay the n-th answer. */
async function receiver(hold: (index: number) => Promise<void> = async () => {}) {
  const ids: string[] = [];
  const { url } = await servers.listen((request, response) => {
    request.resume();
    request.on("end", () => {
      ids.push(String(request.headers["webhook-id"]));
      void hold(ids.length - 1).then(() => response.writeHead(200).end());
    });
  });
  return { ids, url };
}

/**
 * The shared engine fixture polling only every 10 minutes (rounds run on `runOnce`, a nudge or at
 * start); `addEndpoint(url)` adds an endpoint signing with one secret and gives its id.
 */
function harness() {
  const fixture = createWebhookEngineFixture({ pollIntervalMs: 600_000 });
  const secret = newWebhookSecret();
  const addEndpoint = async (url: string) =>
    (await fixture.addEndpoint({ url, secrets: [sealedSecret(secret)] })).id;
  return { ...fixture, addEndpoint };
}

/** The first time each id came, in order, and how many came more than once. */
const tally = (ids: readonly string[]) => {
  const unique = [...new Set(ids)];
  return { unique, duplicates: ids.length - unique.length };
};

describe("webhook engine - several instances", () => {
  it("runOnce - two instances on one store deliver 200 messages to each endpoint, in order, none lost", async () => {
    const { stores, emit, addEndpoint, engine } = harness();
    const targets = await Promise.all([receiver(), receiver(), receiver()]);
    for (const target of targets) await addEndpoint(target.url);
    const recorded = { a: 0, b: 0 };
    const byOwner = (owner: "a" | "b"): WebhookStore => ({
      ...stores.webhooks,
      // Each message's delivery is written, sent, by the batch's advance: counted when it is written.
      advance: async (...args) => {
        const written = await stores.webhooks.advance(...args);
        if (written) recorded[owner] += args[4].length;
        return written;
      },
    });
    const a = engine({ instanceId: "a", store: byOwner("a") });
    const b = engine({ instanceId: "b", store: byOwner("b") });
    const entries = [];
    for (let wave = 0; wave < 10; wave++) {
      entries.push(...(await emit(20)));
      // Either one starts first (and leases the endpoints first); the other finds them taken or comes after.
      const [first, second] = wave % 2 === 0 ? [a, b] : [b, a];
      await Promise.all([first.runOnce(), second.runOnce(), wave % 3 === 0 ? second.runOnce() : undefined]);
    }
    await Promise.all([a.runOnce(), b.runOnce()]);
    for (const target of targets) {
      const { unique, duplicates } = tally(target.ids);
      expect(unique).toEqual(entries.map((entry) => entry.id));
      expect(duplicates).toBe(0);
    }
    expect(recorded.a + recorded.b).toBe(600);
    expect(recorded.a).toBeGreaterThan(0);
    expect(recorded.b).toBeGreaterThan(0);
  });

  it("runOnce - a stalled instance's lease is taken over: its late write is refused, one message comes twice", async () => {
    const { clock, stores, options, emit, addEndpoint, engine } = harness();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const target = await receiver((index) => (index === 0 ? held : Promise.resolve()));
    const endpoint = await addEndpoint(target.url);
    const entries = await emit(3);
    const stalled = engine({ instanceId: "stalled" }).runOnce();
    await expect.poll(() => target.ids.length).toBe(1);
    clock.advance(options.leaseMs + 1);
    await engine({ instanceId: "next" }).runOnce();
    release();
    await stalled;
    const { unique, duplicates } = tally(target.ids);
    expect(unique).toEqual(entries.map((entry) => entry.id));
    expect(duplicates).toBe(1);
    const deliveries = await stores.webhooks.listDeliveries(endpoint, { limit: 10 });
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts])).toEqual([
      ["succeeded", 1],
      ["succeeded", 1],
      ["succeeded", 1],
    ]);
  });

  it("runOnce - an instance that listed the endpoints before another worked them goes on from the current cursor", async () => {
    const { stores, emit, addEndpoint, engine } = harness();
    const target = await receiver();
    await addEndpoint(target.url);
    const entries = await emit(3);
    const stale = await stores.webhooks.listEndpoints(undefined);
    await engine({ instanceId: "a" }).runOnce();
    entries.push(...(await emit(2)));
    await engine({
      instanceId: "b",
      store: { ...stores.webhooks, listEndpoints: async () => stale },
    }).runOnce();
    expect(target.ids).toEqual(entries.map((entry) => entry.id));
  });

  it("runOnce - a store failure is logged, the round goes on with the next endpoint, nothing is lost", async () => {
    const { stores, emit, addEndpoint, engine } = harness();
    const [first, second] = [await receiver(), await receiver()];
    const broken = await addEndpoint(first.url);
    await addEndpoint(second.url);
    let failures = 1;
    const store: WebhookStore = {
      ...stores.webhooks,
      pendingDeliveries: async (endpointId) => {
        if (endpointId === broken && failures-- > 0) throw new Error("connection lost");
        return stores.webhooks.pendingDeliveries(endpointId);
      },
    };
    const { logger, lines } = createLineLogger();
    const entries = await emit(5);
    const instance = engine({ store, logger });
    await instance.runOnce();
    expect(first.ids).toEqual([]);
    expect(second.ids).toHaveLength(5);
    expect(lines.filter((line) => line.includes('"webhook.store_failed"'))).toHaveLength(1);
    // The lease was given back: another instance can work the endpoint at once.
    await engine({ instanceId: "other" }).runOnce();
    expect(first.ids).toEqual(entries.map((entry) => entry.id));
  });

  it("start - rounds run on a nudge and at start; stop ends them; deliver: false never starts", async () => {
    const { options, emit, addEndpoint, engine } = harness();
    const target = await receiver();
    await addEndpoint(target.url);
    const idle = engine({ options: { ...options, deliver: false } });
    idle.start();
    idle.nudge();
    await emit(1);
    const running = engine();
    running.start();
    await expect.poll(() => target.ids.length).toBe(1);
    await emit(2);
    running.nudge();
    running.nudge();
    await expect.poll(() => target.ids.length).toBe(3);
    await running.stop();
    await emit(1);
    running.nudge();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(target.ids).toHaveLength(3);
    await idle.stop();
  });

  it("nudge - gatherMs: an idle instance sends at once; the events of the next gatherMs go out in one round", async () => {
    const { options, stores, emit, addEndpoint, engine } = harness();
    const target = await receiver();
    await addEndpoint(target.url);
    const rounds: number[] = [];
    const counted: WebhookStore = {
      ...stores.webhooks,
      // A round lists the endpoints once: when it started.
      listEndpoints: (...args) => {
        rounds.push(performance.now());
        return stores.webhooks.listEndpoints(...args);
      },
    };
    const running = engine({ options: { ...options, gatherMs: 400 }, store: counted });
    running.start();
    await expect.poll(() => rounds.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 450));
    await emit(1);
    const woken = performance.now();
    running.nudge();
    await expect.poll(() => target.ids.length).toBe(1);
    expect((rounds[1] ?? Number.POSITIVE_INFINITY) - woken).toBeLessThan(200);
    for (let i = 0; i < 5; i += 1) {
      await emit(1);
      running.nudge();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect.poll(() => target.ids.length).toBe(6);
    const [, second = 0, third = 0] = rounds;
    expect(rounds).toHaveLength(3);
    expect(third - second).toBeGreaterThanOrEqual(395);
    await running.stop();
  });
});
