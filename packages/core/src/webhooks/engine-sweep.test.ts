import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { WebhookDelivery, WebhookDeliveryStatus } from "../ports/webhook-store.js";
import {
  createLineLogger,
  createTestServers,
  createWebhookEngineFixture,
  sealedSecret,
} from "../test-support.js";
import { WEBHOOK_DELIVERY_RETENTION_MS, WEBHOOK_SWEEP_INTERVAL_MS } from "./engine.js";
import { newWebhookSecret } from "./signing.js";

const DAY_MS = 24 * 3600 * 1000;
const MINUTE_MS = 60 * 1000;

const cleanups: (() => Promise<void>)[] = [];
const servers = createTestServers();
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await servers.closeAll();
});

/**
 * The shared engine fixture and one engine over it (its store's `sweepDeliveries` calls kept in
 * `sweeps`, and failing while `failSweeps` is set), its log lines, and a maker of deliveries.
 */
function harness() {
  const { clock, stores, emit, addEndpoint, engine: makeEngine } = createWebhookEngineFixture();
  const { logger, lines } = createLineLogger();
  const sweeps: { olderThan: number; at: number }[] = [];
  const control = { failSweeps: false };
  const store = {
    ...stores.webhooks,
    async sweepDeliveries(olderThan: number) {
      sweeps.push({ olderThan, at: clock.now() });
      if (control.failSweeps) throw new Error("the database is down");
      return stores.webhooks.sweepDeliveries(olderThan);
    },
  };
  const engine = makeEngine({ store, logger });
  cleanups.push(() => engine.stop());
  /** A redelivery of `endpointId` made `ageMs` ago, with `status`. */
  const addDelivery = async (endpointId: string, status: WebhookDeliveryStatus, ageMs: number) => {
    const createdAt = clock.now() - ageMs;
    const delivery: WebhookDelivery = {
      id: randomBytes(16).toString("hex"),
      endpointId,
      entryId: randomBytes(16).toString("hex"),
      seq: 1,
      type: "login.succeeded",
      status,
      attempts: status === "pending" ? 0 : 1,
      createdAt,
      lastAttemptAt: status === "pending" ? null : createdAt,
      lastStatusCode: status === "pending" ? null : status === "succeeded" ? 200 : 500,
      lastError: status === "failed" ? "HTTP 500" : null,
      nextAttemptAt: status === "pending" ? createdAt : null,
      redelivery: true,
    };
    await stores.webhooks.addDelivery(delivery);
    return delivery;
  };
  const kept = async (delivery: WebhookDelivery) =>
    (await stores.webhooks.findDelivery(delivery.endpointId, delivery.id)) !== null;
  return { clock, stores, engine, lines, sweeps, control, emit, addEndpoint, addDelivery, kept };
}

/**
 * A receiver on 127.0.0.1 that answers every request 204 and keeps the `webhook-id` of each (the
 * fake clock is hours off the real time, so a signature check's tolerance would refuse them).
 */
async function countingReceiver() {
  const received: string[] = [];
  const { url } = await servers.listen((request, response) => {
    received.push(String(request.headers["webhook-id"]));
    request.resume();
    request.on("end", () => response.writeHead(204).end());
  });
  return { received, url };
}

describe("webhook engine: the sweep of finished deliveries", () => {
  it("runOnce - after a round, finished deliveries older than 30 days go; pending and newer ones stay", async () => {
    const { engine, sweeps, clock, addEndpoint, addDelivery, kept } = harness();
    // Disabled: the round works nothing, and its pending delivery is never sent.
    const endpoint = await addEndpoint({ enabled: false, disabledReason: "manual" });
    const old = WEBHOOK_DELIVERY_RETENTION_MS + MINUTE_MS;
    const gone = [
      await addDelivery(endpoint.id, "succeeded", old),
      await addDelivery(endpoint.id, "failed", 90 * DAY_MS),
    ];
    const stay = [
      await addDelivery(endpoint.id, "pending", old),
      await addDelivery(endpoint.id, "succeeded", WEBHOOK_DELIVERY_RETENTION_MS - MINUTE_MS),
      await addDelivery(endpoint.id, "failed", DAY_MS),
    ];
    await engine.runOnce();
    expect(sweeps).toEqual([{ olderThan: clock.now() - WEBHOOK_DELIVERY_RETENTION_MS, at: clock.now() }]);
    for (const delivery of gone) expect(await kept(delivery)).toBe(false);
    for (const delivery of stay) expect(await kept(delivery)).toBe(true);
  });

  it("runOnce - sweeps at most once an hour on the core's clock, whatever the number of rounds", async () => {
    const { engine, sweeps, clock, addEndpoint, addDelivery, kept } = harness();
    const endpoint = await addEndpoint({ enabled: false, disabledReason: "manual" });
    await engine.runOnce();
    expect(sweeps).toHaveLength(1);
    const aged = await addDelivery(endpoint.id, "succeeded", WEBHOOK_DELIVERY_RETENTION_MS + MINUTE_MS);
    for (let round = 0; round < 5; round++) await engine.runOnce();
    clock.advance(WEBHOOK_SWEEP_INTERVAL_MS - 1);
    await engine.runOnce();
    expect(sweeps).toHaveLength(1);
    expect(await kept(aged)).toBe(true);
    clock.advance(1);
    await engine.runOnce();
    expect(sweeps).toHaveLength(2);
    expect(sweeps[1]?.olderThan).toBe(clock.now() - WEBHOOK_DELIVERY_RETENTION_MS);
    expect(await kept(aged)).toBe(false);
    await engine.runOnce();
    expect(sweeps).toHaveLength(2);
  });

  it("runOnce - a failing sweep is logged webhook.sweep_failed, delivery goes on, and the next try is an hour later", async () => {
    const { engine, sweeps, control, clock, lines, emit, addEndpoint } = harness();
    const receiver = await countingReceiver();
    await addEndpoint({ url: receiver.url, secrets: [sealedSecret(newWebhookSecret())] });
    control.failSweeps = true;
    await emit(1);
    await engine.runOnce();
    expect(receiver.received).toHaveLength(1);
    const failed = () => lines.filter((line) => line.includes('"webhook.sweep_failed"'));
    expect(failed()).toHaveLength(1);
    expect(JSON.parse(failed()[0] ?? "{}")).toMatchObject({
      level: "error",
      err: "Error: the database is down",
    });
    await emit(1);
    await engine.runOnce();
    expect(receiver.received).toHaveLength(2);
    expect(sweeps).toHaveLength(1);
    control.failSweeps = false;
    clock.advance(WEBHOOK_SWEEP_INTERVAL_MS);
    await emit(1);
    await engine.runOnce();
    expect(receiver.received).toHaveLength(3);
    expect(sweeps).toHaveLength(2);
    expect(failed()).toHaveLength(1);
  });
});
