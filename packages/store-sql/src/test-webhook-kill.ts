import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Auth } from "@portcullis/core";
import { startWebhookReceiver, type WebhookReceiver } from "@portcullis/testing";
import { expect } from "vitest";
import {
  adminCall,
  callMark,
  EVENT_ANSWERS,
  everyEntryDelivered,
  type FaultStores,
  faultEndpoint,
  until,
  WEBHOOK_FAULTS_SECRET,
  wantedEntries,
  webhookAuth,
} from "./test-webhooks.js";

/**
 * Test support (not part of the package's exports): kill -9 of a server between the changes it
 * answered and their webhook deliveries, for store-sql's and store-redis's webhook-faults tests.
 */

const CHILD = fileURLToPath(new URL("./webhook-kill-child.mjs", import.meta.url));
/** The child reads the built packages: store-sql's, and for Redis store-redis's and store-memory's. */
export const canRunKillChild = (redis: boolean) =>
  [
    "../dist/index.js",
    ...(redis ? ["../../store-redis/dist/index.js", "../../store-memory/dist/index.js"] : []),
  ].every((path) => existsSync(fileURLToPath(new URL(path, import.meta.url))));

/** The child's and the next instance's webhook settings: the first retries within 2 s, a 2.5 s lease. */
const WEBHOOKS = { retryScale: 0.0002, pollIntervalMs: 25, leaseMs: 2_500, timeoutMs: 2_000 };
/** Calls the child makes while the receiver is down; then one every `PACE_MS` until it is killed. */
const CALLS = 30;
const PACE_MS = 40;
/** Messages the receiver answers before it holds the next one: the attempt the kill cuts. */
const ANSWERED_BEFORE_HOLD = 3;
/** How long the receiver holds that answer (under the child's `timeoutMs`, so the attempt is still open at the kill). */
const HOLD_MS = 1_000;

interface RunningChild {
  process: ChildProcess;
  /** Its stdout, a line each. */
  lines: string[];
  closed: Promise<NodeJS.Signals | null>;
}

function startChild(config: Record<string, unknown>): RunningChild {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  let partial = "";
  child.stdout.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  });
  const closed = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("close", (_code, signal) => resolve(signal)),
  );
  return { process: child, lines, closed };
}

const running = (child: RunningChild) => child.process.exitCode === null && child.process.signalCode === null;

/**
 * Makes `receiver` hold its answer to the first request that comes once it has answered `after`
 * messages, for `holdMs`. The receiver reads `delayMs` as each request comes in (after its body):
 * a getter sees the request arrive, and `heldAt` says when (0 before). `release` ends the holding.
 */
function holdOne(receiver: WebhookReceiver, after: number, holdMs: number) {
  const hold = {
    heldAt: 0,
    release() {
      Object.defineProperty(receiver, "delayMs", { value: 0, writable: true, configurable: true });
    },
  };
  Object.defineProperty(receiver, "delayMs", {
    configurable: true,
    get() {
      if (hold.heldAt === 0 && receiver.received.length >= after) hold.heldAt = Date.now();
      return hold.heldAt === 0 ? 0 : holdMs;
    },
  });
  return hold;
}

/** Where the child opens its stores: tables under a prefix on PostgreSQL, or keys under a prefix on Redis. */
export type ChildStores =
  | { kind: "postgres"; url: string; tablePrefix: string }
  | { kind: "redis"; url: string; keyPrefix: string };

/**
 * kill -9 between the change and the delivery: an endpoint made here (delivering off), the
 * receiver down while a child process on the same stores makes `CALLS` calls, each answered (and
 * more after them, until it dies); the receiver comes back, answers three messages and holds the
 * fourth, and the child is SIGKILLed with that attempt open. A new instance on the same stores
 * then delivers every entry of the log the endpoint wants, in order, once the dead process's lease
 * ran out: the first message, retried alone and recorded, is not repeated; the batch after it,
 * cut short by the kill before its write (the messages answered in it and the held one), is sent
 * again. Every answered call has its entry.
 */
export async function killMidDelivery(name: string, stores: FaultStores, childStores: ChildStores) {
  const receiver = await startWebhookReceiver();
  const setup = webhookAuth(stores, { ...WEBHOOKS, deliver: false });
  let child: RunningChild | undefined;
  let next: Auth | undefined;
  try {
    const endpoint = await faultEndpoint(setup, await adminCall(setup), receiver, stores.webhooks);
    await receiver.stop();
    const tag = `kill${randomBytes(3).toString("hex")}`;
    const started = Date.now();
    const config = { secret: WEBHOOK_FAULTS_SECRET, store: childStores, webhooks: WEBHOOKS, tag };
    const current = startChild({ ...config, calls: CALLS, paceMs: PACE_MS });
    child = current;
    await until(
      "the child's calls",
      () => {
        if (!running(current)) throw new Error(`the child ended: ${current.lines.join("\n")}`);
        return current.lines.includes("calls done");
      },
      60_000,
    );
    const callsMs = Date.now() - started;
    const hold = holdOne(receiver, ANSWERED_BEFORE_HOLD, HOLD_MS);
    await receiver.start();
    await until("an attempt held by the receiver", () => hold.heldAt > 0, 30_000);
    current.process.kill("SIGKILL");
    const killedAt = Date.now();
    expect(await current.closed).toBe("SIGKILL");
    hold.release();
    // The held attempt is answered, to a process that is gone, long before the lease ends.
    await until("the held answer", () => receiver.received.length > ANSWERED_BEFORE_HOLD, 10_000);
    const entries = await wantedEntries(stores.auditLog, endpoint.cursor);
    next = webhookAuth(stores, WEBHOOKS);
    const figures = await everyEntryDelivered(receiver, entries, 60_000);
    const doneMs = Date.now() - killedAt;

    const answers = current.lines.filter((line) => line.startsWith("done ")).map((line) => line.split(" "));
    const logged = new Set(entries.map((entry) => entry.userAgent));
    const unlogged = answers.filter(([, index]) => !logged.has(callMark(tag, Number(index))));
    // The first answer was the first message's retry (recorded alone); the batch after it began
    // with the second, and the next instance starts that batch again.
    const batchStart = receiver.received[1];
    const [before, , again] = receiver.received.slice(ANSWERED_BEFORE_HOLD - 1, ANSWERED_BEFORE_HOLD + 2);
    const deliveries = await stores.webhooks.listDeliveries(endpoint.id, { limit: 1000 });
    const firstAttempts = deliveries.at(-1)?.attempts;
    const takeoverMs = (again?.at ?? 0) - (before?.at ?? 0);
    console.info(
      `kill -9 ${name}: ${CALLS} calls answered with the receiver down (${callsMs} ms), ${answers.length} in all ` +
        `before the kill; killed ${killedAt - hold.heldAt} ms into the attempt of message ${ANSWERED_BEFORE_HOLD + 1}; ` +
        `the first message took ${firstAttempts} attempts. The next instance: the cut batch again ` +
        `${takeoverMs} ms after the last answer before the kill (lease ${WEBHOOKS.leaseMs} ms), ` +
        `${figures.distinct} of ${figures.expected} entries delivered, ${figures.duplicates} duplicate, ` +
        `out of order ${figures.outOfOrder}, ${doneMs} ms after the kill`,
    );
    expect(answers.map(([, , code]) => code).filter((code) => !EVENT_ANSWERS.has(code ?? ""))).toEqual([]);
    expect(unlogged).toEqual([]);
    // Repeated: the batch's messages answered before the hold, and the held one.
    const repeated = ANSWERED_BEFORE_HOLD - 1 + 1;
    expect(figures).toMatchObject({ missing: 0, unexpected: 0, outOfOrder: 0, duplicates: repeated });
    expect(again?.id).toBe(batchStart?.id);
    // Not before the dead instance's lease ran out: it renews its lease once less than half is
    // left, so at its last answer at least half of `leaseMs` was still to run.
    expect(takeoverMs).toBeGreaterThanOrEqual(WEBHOOKS.leaseMs / 2);
    expect(firstAttempts).toBeGreaterThan(1);
  } finally {
    if (child && running(child)) child.process.kill("SIGKILL");
    await next?.webhooks.stop();
    await setup.webhooks.stop();
    await receiver.stop();
  }
}
