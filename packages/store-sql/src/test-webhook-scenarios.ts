import { randomBytes } from "node:crypto";
import { startWebhookReceiver, type WebhookReceiver } from "@portcullis/testing";
import { expect } from "vitest";
import {
  adminCall,
  causeEvents,
  countingLogger,
  countingWebhookStore,
  deliveryFigures,
  EVENT_ANSWERS,
  everyEntryDelivered,
  type FaultStores,
  faultEndpoint,
  receivedOf,
  until,
  wantedEntries,
  webhookAuth,
} from "./test-webhooks.js";

/**
 * Test support (not part of the package's exports): the webhook fault scenarios that store-sql's
 * and store-redis's webhook-faults tests run on their stores (the kill test is test-webhook-kill.ts).
 */

const HOUR = 3_600_000;
const tagged = (what: string) => `${what}${randomBytes(3).toString("hex")}`;

/** Only the answers that write an event (a registration, a failed sign-in): anything else fails the test. */
function expectEventAnswers(codes: Record<string, number>, count: number) {
  expect(Object.keys(codes).filter((code) => !EVENT_ANSWERS.has(code))).toEqual([]);
  expect(Object.values(codes).reduce((sum, n) => sum + n, 0)).toBe(count);
}

/** The back-off scaled so that its 7 h 35 min before the sixth attempt last 5.5 s. */
const DOWN_SCALE = 0.0002;
/** The back-off's first five waits (5 s, 5 min, 30 min, 2 h, 5 h): the sixth attempt comes this long after the first. */
const BEFORE_SIXTH_MS = 5_000 + 5 * 60_000 + 30 * 60_000 + 2 * HOUR + 5 * HOUR;

/**
 * A receiver down for the back-off's first three hours (scaled with `retryScale`), then up: the
 * first message, refused five times, comes at its sixth attempt, and everything after it, which
 * waited behind it, in order, none lost. The deliveries list shows the attempts.
 */
export async function receiverDownForHours(name: string, stores: FaultStores) {
  const receiver = await startWebhookReceiver();
  const auth = webhookAuth(stores, {
    retryScale: DOWN_SCALE,
    pollIntervalMs: 20,
    leaseMs: 2_000,
    timeoutMs: 1_000,
  });
  try {
    const admin = await adminCall(auth);
    const endpoint = await faultEndpoint(auth, admin, receiver, stores.webhooks);
    const page = { endpointId: endpoint.id, limit: 100 };
    const oldest = async () => (await auth.webhooks.listDeliveries(admin, page)).items.at(-1);
    await receiver.stop();
    expectEventAnswers(await causeEvents(auth, tagged("down"), 20), 20);
    let whileDown = await oldest();
    // Down for three scaled hours, and until the fifth attempt (2 h 35 min in) failed.
    await until(
      "five refused attempts over three scaled hours",
      async () => {
        whileDown = await oldest();
        if (whileDown === undefined || whileDown.attempts < 5) return false;
        return Date.now() - Date.parse(whileDown.createdAt) >= 3 * HOUR * DOWN_SCALE;
      },
      30_000,
    );
    await receiver.start();
    const upAt = Date.now();
    const entries = await wantedEntries(stores.auditLog, endpoint.cursor);
    const figures = await everyEntryDelivered(receiver, entries);
    // The last attempt is recorded once its answer is back: after the receiver counted it.
    const settled = async () => (await auth.webhooks.listDeliveries(admin, page)).items;
    await until("every delivery recorded", async () =>
      (await settled()).every((item) => item.status !== "pending"),
    );
    const items = await settled();
    const first = items.at(-1);
    const firstMs = Date.parse(first?.lastAttemptAt ?? "") - Date.parse(first?.createdAt ?? "");
    const scaledHours = (ms: number) => (ms / DOWN_SCALE / HOUR).toFixed(2);
    console.info(
      `receiver down ${name}: down ${upAt - Date.parse(whileDown?.createdAt ?? "")} ms ` +
        `(${scaledHours(upAt - Date.parse(whileDown?.createdAt ?? ""))} h scaled) while ${entries.length} events ` +
        `waited; before it came back the first delivery read ${JSON.stringify({
          attempts: whileDown?.attempts,
          lastError: whileDown?.lastError,
          nextAttemptAt: whileDown?.nextAttemptAt,
        })}; it arrived at attempt ${first?.attempts}, ${firstMs} ms (${scaledHours(firstMs)} h scaled) ` +
        `after the first; then ${figures.distinct - 1} more, ${Date.now() - upAt} ms after the receiver came ` +
        `back; attempts in the list, oldest first: ${items
          .map((item) => item.attempts)
          .reverse()
          .join(",")}; ` +
        `duplicates ${figures.duplicates}, out of order ${figures.outOfOrder}`,
    );
    expect(whileDown).toMatchObject({
      status: "pending",
      lastStatusCode: null,
      lastError: "connection refused",
    });
    expect(figures).toMatchObject({ expected: 20, missing: 0, unexpected: 0, outOfOrder: 0, duplicates: 0 });
    expect(first).toMatchObject({ attempts: 6, status: "succeeded", lastStatusCode: 200, lastError: null });
    expect(firstMs).toBeGreaterThanOrEqual(BEFORE_SIXTH_MS * DOWN_SCALE);
    expect(items.slice(0, -1).map((item) => [item.status, item.attempts])).toEqual(
      items.slice(0, -1).map(() => ["succeeded", 1]),
    );
  } finally {
    await auth.webhooks.stop();
    await receiver.stop();
  }
}

/** A store made to fail for a while: `begin` takes it away (stopped or frozen), `end` brings it back. */
export interface StoreOutage {
  begin(): Promise<void>;
  end(): Promise<void>;
}

const BURST = 150;
/** How long the store stays away at least: longer than the worker's lease (1.5 s), which runs out meanwhile. */
const OUTAGE_MS = 2_000;

/**
 * The store goes away in the middle of a delivery burst: `BURST` events answered, the worker
 * sending them to a receiver that takes 10 ms an answer; once 30 arrived the store goes down
 * (`outage.begin`) for `OUTAGE_MS` and until the worker has logged a failure of it, then comes
 * back. Every event arrives at least once, in order.
 */
export async function outageDuringBurst(name: string, stores: FaultStores, outage: StoreOutage) {
  const receiver = await startWebhookReceiver();
  receiver.delayMs = 10;
  const { logger, count } = countingLogger();
  const auth = webhookAuth(
    stores,
    { retryScale: 0.001, pollIntervalMs: 25, leaseMs: 1_500, timeoutMs: 1_000 },
    logger,
  );
  let down = false;
  try {
    const endpoint = await faultEndpoint(auth, await adminCall(auth), receiver, stores.webhooks);
    expectEventAnswers(await causeEvents(auth, tagged("outage"), BURST, { lanes: 4 }), BURST);
    const entries = await wantedEntries(stores.auditLog, endpoint.cursor);
    await until("30 messages at the receiver", () => receiver.received.length >= 30);
    const before = receivedOf(receiver, entries);
    const failuresBefore = count("webhook.store_failed");
    await outage.begin();
    down = true;
    const downAt = Date.now();
    await until(
      "the outage's length and a store failure logged by the worker",
      () => Date.now() - downAt >= OUTAGE_MS && count("webhook.store_failed") > failuresBefore,
    );
    const during = receivedOf(receiver, entries) - before;
    await outage.end();
    down = false;
    const upAt = Date.now();
    const figures = await everyEntryDelivered(receiver, entries, 60_000);
    console.info(
      `store outage ${name}: ${entries.length} events; ${before} delivered when the store went down, ` +
        `${during} more while it was (the attempt in flight); down ${upAt - downAt} ms, ` +
        `${count("webhook.store_failed") - failuresBefore} store failures logged by the worker; the rest ` +
        `${Date.now() - upAt} ms after it came back; duplicates ${figures.duplicates}, ` +
        `out of order ${figures.outOfOrder}, missing ${figures.missing}`,
    );
    expect(before).toBeLessThan(entries.length);
    expect(figures).toMatchObject({ expected: BURST, missing: 0, unexpected: 0, outOfOrder: 0 });
  } finally {
    if (down) await outage.end();
    await auth.webhooks.stop();
    await receiver.stop();
  }
}

/** Two instances' settings: a 3 s lease (over the 2 s timeout), a poll every 50 ms. */
const TWO_INSTANCES = { retryScale: 0.001, pollIntervalMs: 50, leaseMs: 3_000, timeoutMs: 2_000 };
const BURST_OF_TWO = 1_000;

/**
 * Two instances (two `createAuth`, each on stores of its own opening on the same database, each
 * worker running) and two endpoints: `BURST_OF_TWO` events caused through both, half each, and
 * every one delivered to both receivers, in order, duplicates under 1 %.
 */
export async function twoInstancesBurst(name: string, open: () => Promise<FaultStores>) {
  const [storesA, storesB] = [await open(), await open()];
  const [a, b] = [countingWebhookStore(storesA.webhooks), countingWebhookStore(storesB.webhooks)];
  const authA = webhookAuth({ ...storesA, webhooks: a.store }, TWO_INSTANCES);
  const authB = webhookAuth({ ...storesB, webhooks: b.store }, TWO_INSTANCES);
  const receivers: WebhookReceiver[] = [];
  try {
    receivers.push(await startWebhookReceiver(), await startWebhookReceiver());
    const admin = await adminCall(authA);
    const endpoints = [
      await faultEndpoint(authA, admin, receivers[0] as WebhookReceiver, storesA.webhooks),
      await faultEndpoint(authB, admin, receivers[1] as WebhookReceiver, storesB.webhooks),
    ];
    const tag = tagged("two");
    const started = Date.now();
    const half = BURST_OF_TWO / 2;
    const codes = await Promise.all([
      causeEvents(authA, tag, half, { lanes: 8, registerEvery: 10 }),
      causeEvents(authB, tag, half, { lanes: 8, from: half, registerEvery: 10 }),
    ]);
    const calledMs = Date.now() - started;
    for (const answered of codes) expectEventAnswers(answered, half);
    const expected = await Promise.all(
      endpoints.map((endpoint) => wantedEntries(storesA.auditLog, endpoint.cursor)),
    );
    const all = () =>
      receivers.every((receiver, i) => receivedOf(receiver, expected[i] ?? []) === expected[i]?.length);
    await until(`${BURST_OF_TWO} events at both receivers`, all, 90_000);
    const deliveredMs = Date.now() - started;
    // The last attempts are recorded after their answers arrived: the counts once both stopped.
    await Promise.all([authA.webhooks.stop(), authB.webhooks.stop()]);
    const figures = receivers.map((receiver, i) => deliveryFigures(receiver, expected[i] ?? []));
    console.info(
      `two instances ${name}: ${BURST_OF_TWO} events caused through both in ${calledMs} ms, delivered to ` +
        `2 endpoints ${deliveredMs} ms after the first call; attempts recorded by instance A ` +
        `${a.recorded()}, B ${b.recorded()}; per endpoint ${JSON.stringify(figures)}`,
    );
    for (const figure of figures) {
      expect(figure).toMatchObject({ expected: BURST_OF_TWO, missing: 0, unexpected: 0, outOfOrder: 0 });
      expect(figure.duplicates).toBeLessThan(BURST_OF_TWO / 100);
    }
  } finally {
    await Promise.all([authA.webhooks.stop(), authB.webhooks.stop()]);
    for (const receiver of receivers) await receiver.stop();
  }
}
