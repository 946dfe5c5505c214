import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { WebhookEndpoint, WebhookStore } from "../ports/webhook-store.js";
import {
  createLineLogger,
  createTestServers,
  createWebhookEngineFixture,
  sealedSecret,
  WEBHOOK_ENGINE_OPTIONS,
} from "../test-support.js";
import { WEBHOOK_RETRY_DELAYS_MS } from "./schedule.js";
import { newWebhookSecret } from "./signing.js";
import { BATCH_MESSAGES } from "./worker.js";

/** What a receiver got: the message id, the payload, and whether the signature held. */
interface Message {
  id: string;
  type: string;
  organizationId: string | null;
  signed: boolean;
}

const servers = createTestServers();
afterEach(() => servers.closeAll());

/** A receiver on 127.0.0.1 checking each message's signature with `secret`; `status(n)` answers the n-th (0-based). */
async function receiver(secret: string, status: (index: number) => number = () => 200) {
  const messages: Message[] = [];
  const { server, url } = await servers.listen((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const id = String(request.headers["webhook-id"]);
      const at = new Date(Number(request.headers["webhook-timestamp"]) * 1000);
      const expected = new Webhook(secret).sign(id, at, body);
      const signed = String(request.headers["webhook-signature"]).split(" ").includes(expected);
      const payload = JSON.parse(body) as {
        type: string;
        data: { id: string; organizationId: string | null };
      };
      expect(payload.data.id).toBe(id);
      messages.push({ id, type: payload.type, organizationId: payload.data.organizationId, signed });
      response.writeHead(status(messages.length - 1)).end();
    });
  });
  return { messages, url, server };
}

/** The shared engine fixture, its endpoints sending to `url` and signing with `secret` unless `fields` say otherwise. */
function harness(overrides: Partial<typeof WEBHOOK_ENGINE_OPTIONS> = {}) {
  const fixture = createWebhookEngineFixture(overrides);
  const addEndpoint = (url: string, secret: string, fields: Partial<WebhookEndpoint> = {}) =>
    fixture.addEndpoint({ url, secrets: [sealedSecret(secret)], ...fields });
  return { ...fixture, addEndpoint };
}

/** The store, counting the calls of each method. */
function counting(store: WebhookStore) {
  const calls: Record<string, number> = {};
  const counted = Object.fromEntries(
    Object.entries(store).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (method as (...args: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as WebhookStore;
  return { counted, calls };
}

describe("webhook engine", () => {
  it("runOnce - sends every entry in order, signed, with the entry id as webhook-id; few store calls per message", async () => {
    const { stores, emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    const target = await receiver(secret);
    const endpoint = await addEndpoint(target.url, secret);
    const entries = await emit(20);
    const { counted, calls } = counting(stores.webhooks);
    await engine({ store: counted }).runOnce();
    expect(target.messages.map((message) => message.id)).toEqual(entries.map((entry) => entry.id));
    expect(target.messages.every((message) => message.signed)).toBe(true);
    expect((await stores.webhooks.findEndpoint(endpoint.id))?.cursor).toBe(entries.at(-1)?.seq);
    const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 100 });
    expect(deliveries).toHaveLength(20);
    expect(deliveries.every((delivery) => delivery.status === "succeeded" && delivery.attempts === 1)).toBe(
      true,
    );
    // One write for the 20 messages: sent in order, then their deliveries and the cursor in one
    // advance; the lease, taken once, is not renewed while more than half of it is left (the
    // clock stands still here).
    expect(calls.tryLease).toBe(1);
    expect(calls.advance).toBe(1);
    expect(calls.recordAttempt ?? 0).toBe(0);
    await engine().runOnce();
    expect(target.messages).toHaveLength(20);
  });

  it("runOnce - during a rotation each message carries a signature of both secrets", async () => {
    const { clock, emit, addEndpoint, engine } = harness();
    const [current, old, expired] = [newWebhookSecret(), newWebhookSecret(), newWebhookSecret()];
    const byCurrent = await receiver(current);
    const secrets = [
      sealedSecret(current),
      sealedSecret(old, clock.now() + 60_000),
      sealedSecret(expired, clock.now()),
    ];
    await addEndpoint(byCurrent.url, current, { secrets });
    const byOld = await receiver(old);
    await addEndpoint(byOld.url, current, { secrets });
    const byExpired = await receiver(expired);
    await addEndpoint(byExpired.url, current, { secrets });
    await emit(2);
    await engine().runOnce();
    expect(byCurrent.messages.map((message) => message.signed)).toEqual([true, true]);
    expect(byOld.messages.map((message) => message.signed)).toEqual([true, true]);
    expect(byExpired.messages.map((message) => message.signed)).toEqual([false, false]);
  });

  it("runOnce - an endpoint gets only the event types it names", async () => {
    const { stores, emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    const one = await receiver(secret);
    const two = await receiver(secret);
    await addEndpoint(one.url, secret, { events: ["user.deleted"] });
    const multi = await addEndpoint(two.url, secret, { events: ["user.deleted", "password.changed"] });
    for (let i = 0; i < 3; i++) {
      await emit(150);
      await emit(1, { type: "user.deleted" });
      await emit(1, { type: "password.changed" });
    }
    const last = (await emit(30)).at(-1);
    await engine().runOnce();
    expect(one.messages.map((message) => message.type)).toEqual(Array(3).fill("user.deleted"));
    expect(two.messages.map((message) => message.type)).toEqual(
      Array(3).fill(["user.deleted", "password.changed"]).flat(),
    );
    // The cursor moved past the entries the endpoint does not want too.
    expect((await stores.webhooks.findEndpoint(multi.id))?.cursor).toBe(last?.seq);
  });

  it("runOnce - an organization's endpoint gets only its organization's entries; a deployment's gets all", async () => {
    const { emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    const acme = await receiver(secret);
    const deployment = await receiver(secret);
    await addEndpoint(acme.url, secret, { organizationId: "acme" });
    await addEndpoint(deployment.url, secret);
    await emit(2, { organizationId: "acme" });
    await emit(3, { organizationId: "globex" });
    await emit(1);
    await emit(1, { organizationId: "acme", type: "member.added" });
    await engine().runOnce();
    expect(acme.messages.map((message) => message.organizationId)).toEqual(["acme", "acme", "acme"]);
    expect(acme.messages.map((message) => message.type)).toEqual([
      "login.succeeded",
      "login.succeeded",
      "member.added",
    ]);
    expect(deployment.messages).toHaveLength(7);
  });

  it("runOnce - a redelivery is sent once with the message's id, beside the order, and not retried", async () => {
    const { clock, stores, emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    let failing = false;
    const target = await receiver(secret, () => (failing ? 503 : 200));
    const endpoint = await addEndpoint(target.url, secret);
    const [entry] = await emit(1);
    await engine().runOnce();
    const [first] = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    if (!entry || !first) throw new Error("a delivery was expected");
    const redelivery = {
      ...first,
      id: "r1",
      status: "pending" as const,
      attempts: 0,
      createdAt: clock.now(),
    };
    await stores.webhooks.addDelivery({
      ...redelivery,
      lastAttemptAt: null,
      nextAttemptAt: clock.now(),
      redelivery: true,
    });
    await engine().runOnce();
    expect(target.messages.map((message) => message.id)).toEqual([entry.id, entry.id]);
    expect(await stores.webhooks.findDelivery(endpoint.id, "r1")).toMatchObject({
      status: "succeeded",
      attempts: 1,
    });
    failing = true;
    await stores.webhooks.addDelivery({
      ...redelivery,
      id: "r2",
      nextAttemptAt: clock.now(),
      redelivery: true,
    });
    await engine().runOnce();
    expect(await stores.webhooks.findDelivery(endpoint.id, "r2")).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatusCode: 503,
      lastError: "status 503",
      nextAttemptAt: null,
    });
    clock.advance(3600_000);
    await engine().runOnce();
    expect(target.messages).toHaveLength(3);
    expect((await stores.webhooks.findEndpoint(endpoint.id))?.enabled).toBe(true);
  });

  it("runOnce - a failing receiver is retried on the scaled schedule, holding back the messages after it", async () => {
    const { clock, stores, emit, addEndpoint, engine } = harness({ retryScale: 0.01 });
    const secret = newWebhookSecret();
    const target = await receiver(secret, (index) => (index < 2 ? 500 : 200));
    const endpoint = await addEndpoint(target.url, secret);
    const entries = await emit(3);
    const delivery = async () => (await stores.webhooks.pendingDeliveries(endpoint.id))[0];
    await engine().runOnce();
    expect(target.messages).toHaveLength(1);
    expect(await delivery()).toMatchObject({ attempts: 1, lastStatusCode: 500, lastError: "status 500" });
    expect((await delivery())?.nextAttemptAt).toBe(clock.now() + 50);
    clock.advance(49);
    await engine().runOnce();
    expect(target.messages).toHaveLength(1);
    clock.advance(1);
    await engine().runOnce();
    expect(target.messages).toHaveLength(2);
    expect((await delivery())?.nextAttemptAt).toBe(clock.now() + 3_000);
    clock.advance(3_000);
    await engine().runOnce();
    expect(target.messages.map((message) => message.id)).toEqual(
      [entries[0], entries[0], ...entries].map((entry) => entry?.id),
    );
    expect(await stores.webhooks.pendingDeliveries(endpoint.id)).toEqual([]);
  });

  it("runOnce - a 410 fails the message, disables the endpoint (gone) and calls onDisabled once", async () => {
    const { stores, emit, addEndpoint, engine, disabled } = harness();
    const secret = newWebhookSecret();
    const target = await receiver(secret, () => 410);
    const endpoint = await addEndpoint(target.url, secret);
    await emit(2);
    await engine().runOnce();
    expect(disabled).toEqual([{ id: endpoint.id, enabled: false, reason: "gone" }]);
    expect(await stores.webhooks.findEndpoint(endpoint.id)).toMatchObject({
      enabled: false,
      disabledReason: "gone",
    });
    const [delivery] = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    expect(delivery).toMatchObject({ status: "failed", lastStatusCode: 410, nextAttemptAt: null });
    await emit(1);
    await engine().runOnce();
    expect(target.messages).toHaveLength(1);
    expect(disabled).toHaveLength(1);
  });

  it("runOnce - once the back-off is used up (11 attempts over ~72 h) the endpoint is disabled (failing)", async () => {
    const { clock, stores, emit, addEndpoint, engine, disabled } = harness();
    const secret = newWebhookSecret();
    const target = await receiver(secret, () => 500);
    const endpoint = await addEndpoint(target.url, secret);
    await emit(1);
    const started = clock.now();
    const instance = engine();
    await instance.runOnce();
    for (let i = 0; i < WEBHOOK_RETRY_DELAYS_MS.length; i++) {
      const [pending] = await stores.webhooks.pendingDeliveries(endpoint.id);
      clock.set(pending?.nextAttemptAt ?? Number.NaN);
      await instance.runOnce();
    }
    expect(target.messages).toHaveLength(WEBHOOK_RETRY_DELAYS_MS.length + 1);
    expect((clock.now() - started) / 3600_000).toBeCloseTo(71.58, 1);
    const [delivery] = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    expect(delivery).toMatchObject({ status: "failed", attempts: 11, nextAttemptAt: null });
    expect(disabled).toEqual([{ id: endpoint.id, enabled: false, reason: "failing" }]);
    expect((await stores.webhooks.findEndpoint(endpoint.id))?.disabledReason).toBe("failing");
  });

  it("runOnce - a blocked address is never sent to: the attempt fails, is logged without secrets and waits", async () => {
    const { stores, emit, addEndpoint, engine } = harness({ allowPrivateNetworks: false });
    const secret = newWebhookSecret();
    const target = await receiver(secret);
    const endpoint = await addEndpoint(`${target.url.replace("http:", "https:")}?token=t0p`, secret);
    await emit(1);
    const { logger, lines } = createLineLogger();
    await engine({ logger }).runOnce();
    expect(target.messages).toHaveLength(0);
    const [delivery] = await stores.webhooks.pendingDeliveries(endpoint.id);
    expect(delivery).toMatchObject({
      attempts: 1,
      lastStatusCode: null,
      lastError: "blocked address 127.0.0.1",
    });
    const failed = lines
      .map((line) => JSON.parse(line))
      .find((line) => line.event === "webhook.attempt_failed");
    expect(failed).toMatchObject({
      level: "warn",
      endpointId: endpoint.id,
      error: "blocked address 127.0.0.1",
    });
    // Compared as text: the secret is base64, whose `+` and `/` a RegExp would read as operators.
    const logged = lines.join("\n");
    for (const secretPart of [secret.slice(6, 20), "whsec_", "t0p"]) expect(logged).not.toContain(secretPart);
  });

  it("runOnce - the lease is renewed once less than half of it is left, not before every message", async () => {
    const { clock, stores, emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    // Each answer takes 30 % of the lease: the lease is renewed before every second message.
    const target = await receiver(secret, () => {
      clock.advance(WEBHOOK_ENGINE_OPTIONS.leaseMs * 0.3);
      return 200;
    });
    const endpoint = await addEndpoint(target.url, secret);
    const entries = await emit(6);
    const { counted, calls } = counting(stores.webhooks);
    await engine({ store: counted }).runOnce();
    expect(target.messages.map((message) => message.id)).toEqual(entries.map((entry) => entry.id));
    const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
    expect(deliveries.every((delivery) => delivery.status === "succeeded")).toBe(true);
    // Taken once, then renewed before the 3rd and 5th messages.
    expect(calls.tryLease).toBe(3);
  });

  it("runOnce - rounds reuse one connection to a receiver and open each secret once; stop closes both", async () => {
    const { emit, addEndpoint, engine } = harness();
    const secret = newWebhookSecret();
    const target = await receiver(secret);
    let open = 0;
    let made = 0;
    target.server.on("connection", (socket) => {
      made += 1;
      open += 1;
      socket.on("close", () => {
        open -= 1;
      });
    });
    const connections = () => open;
    let opened = 0;
    await addEndpoint(target.url, secret);
    const running = engine({
      openSecret: async (sealed) => {
        opened += 1;
        return sealed.slice("sealed:".length);
      },
    });
    await emit(3);
    await running.runOnce();
    await emit(2);
    await running.runOnce();
    expect(target.messages).toHaveLength(5);
    expect(target.messages.every((message) => message.signed)).toBe(true);
    expect(opened).toBe(1);
    expect(made).toBe(1);
    expect(connections()).toBe(1);
    await running.stop();
    await expect.poll(connections).toBe(0);
  });

  describe("batches", () => {
    it("runOnce - 250 messages go in batches of 100, each written by one advance after its sends", async () => {
      const { stores, emit, addEndpoint, engine } = harness();
      const secret = newWebhookSecret();
      const target = await receiver(secret);
      const endpoint = await addEndpoint(target.url, secret);
      const entries = await emit(250);
      const sizes: number[] = [];
      const store: WebhookStore = {
        ...stores.webhooks,
        advance: async (...args) => {
          // Every message of the batch was sent before its write.
          expect(target.messages).toHaveLength(sizes.reduce((sum, size) => sum + size, 0) + args[4].length);
          sizes.push(args[4].length);
          return stores.webhooks.advance(...args);
        },
      };
      await engine({ store }).runOnce();
      expect(sizes).toEqual([BATCH_MESSAGES, BATCH_MESSAGES, 50]);
      expect(target.messages.map((message) => message.id)).toEqual(entries.map((entry) => entry.id));
      expect((await stores.webhooks.findEndpoint(endpoint.id))?.cursor).toBe(entries.at(-1)?.seq);
      const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 1_000 });
      expect(deliveries.filter((delivery) => delivery.status === "succeeded")).toHaveLength(250);
    });

    it("runOnce - a failure mid-batch: the messages before it written sent, it pending with its retry, none after it sent", async () => {
      const { clock, stores, emit, addEndpoint, engine } = harness({ retryScale: 0.01 });
      const secret = newWebhookSecret();
      const target = await receiver(secret, (index) => (index === 2 ? 503 : 200));
      const endpoint = await addEndpoint(target.url, secret);
      const entries = await emit(5);
      await engine().runOnce();
      expect(target.messages.map((message) => message.id)).toEqual(
        entries.slice(0, 3).map((entry) => entry.id),
      );
      expect((await stores.webhooks.findEndpoint(endpoint.id))?.cursor).toBe(entries[2]?.seq);
      const [waiting, ...others] = await stores.webhooks.pendingDeliveries(endpoint.id);
      expect(others).toEqual([]);
      expect(waiting).toMatchObject({ entryId: entries[2]?.id, attempts: 1, lastStatusCode: 503 });
      expect(waiting?.nextAttemptAt).toBe(clock.now() + 50);
      clock.advance(50);
      await engine().runOnce();
      expect(target.messages.map((message) => message.id)).toEqual(
        [...entries.slice(0, 3), ...entries.slice(2)].map((entry) => entry.id),
      );
      const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
      expect(deliveries.map((delivery) => delivery.status)).toEqual(Array(5).fill("succeeded"));
    });

    it("runOnce - a 410 mid-batch: the sent ones and the failed one written with the endpoint disabled", async () => {
      const { stores, emit, addEndpoint, engine, disabled } = harness();
      const secret = newWebhookSecret();
      const target = await receiver(secret, (index) => (index === 1 ? 410 : 200));
      const endpoint = await addEndpoint(target.url, secret);
      const entries = await emit(4);
      await engine().runOnce();
      expect(target.messages).toHaveLength(2);
      expect(disabled).toEqual([{ id: endpoint.id, enabled: false, reason: "gone" }]);
      expect(await stores.webhooks.findEndpoint(endpoint.id)).toMatchObject({
        enabled: false,
        disabledReason: "gone",
        cursor: entries[1]?.seq,
      });
      const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 });
      // Made at the same instant (the clock stands still): in the order of the log.
      const inOrder = deliveries.sort((a, b) => a.seq - b.seq);
      expect(inOrder.map((delivery) => [delivery.entryId, delivery.status])).toEqual([
        [entries[0]?.id, "succeeded"],
        [entries[1]?.id, "failed"],
      ]);
    });

    it("runOnce - a batch whose write fails is sent again by the next round: at least once, nothing lost", async () => {
      const { stores, emit, addEndpoint, engine } = harness();
      const secret = newWebhookSecret();
      const target = await receiver(secret);
      const endpoint = await addEndpoint(target.url, secret);
      const entries = await emit(5);
      let failures = 1;
      const store: WebhookStore = {
        ...stores.webhooks,
        advance: async (...args) => {
          if (failures-- > 0) throw new Error("connection lost");
          return stores.webhooks.advance(...args);
        },
      };
      const { logger, lines } = createLineLogger();
      await engine({ store, logger }).runOnce();
      expect(lines.filter((line) => line.includes('"webhook.store_failed"'))).toHaveLength(1);
      expect((await stores.webhooks.findEndpoint(endpoint.id))?.cursor).toBe(endpoint.cursor);
      await engine({ store }).runOnce();
      const ids = entries.map((entry) => entry.id);
      expect(target.messages.map((message) => message.id)).toEqual([...ids, ...ids]);
      expect(await stores.webhooks.listDeliveries(endpoint.id, { limit: 10 })).toHaveLength(5);
    });
  });
});
