import { randomBytes } from "node:crypto";
import type { ResolvedWebhooksOptions } from "../options/webhook-options.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { WebhookDisabledReason, WebhookEndpoint, WebhookStore } from "../ports/webhook-store.js";
import type { LookupAddresses } from "./address-guard.js";
import { createWebhookAgents } from "./send.js";
import { workEndpoint } from "./worker.js";

/** How many endpoints one instance works at the same time (a slow receiver holds up only its own). */
export const ENDPOINTS_AT_ONCE = 4;

/** How long a finished delivery (succeeded, or failed for good) is kept: 30 days, then it is swept. */
export const WEBHOOK_DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** How many opened endpoint secrets one engine keeps (the least recently used go first). */
export const OPENED_SECRETS_KEPT = 1_000;

/** How often one instance sweeps finished deliveries at most: once an hour. */
export const WEBHOOK_SWEEP_INTERVAL_MS = 3600 * 1000;

export interface WebhookEngineDeps {
  store: WebhookStore;
  /** The outbox: every entry is one message. */
  auditLog: AuditLogStore;
  /** Opens a sealed endpoint secret (the core's secret box). */
  openSecret(sealed: string): Promise<string>;
  options: NonNullable<ResolvedWebhooksOptions>;
  clock: Clock;
  logger: Logger;
  /** Called once an attempt disabled an endpoint (410 Gone, or the back-off used up); errors are logged. */
  onDisabled(endpoint: WebhookEndpoint, reason: WebhookDisabledReason): Promise<void>;
  /** Mints delivery ids (lowercase hex). */
  newId(): string;
  /** How host names are resolved (tests inject one). Default: the system resolver. */
  lookup?: LookupAddresses | undefined;
  /**
   * Whether an organization still exists; undefined without organizations. An organization's
   * endpoint is checked before the first send of each work, and deleted when it is gone.
   */
  organizationExists?: ((organizationId: string) => Promise<boolean>) | undefined;
  /** This instance's name on the leases. Default: 16 random hex digits. */
  instanceId?: string | undefined;
}

/** The delivery side of webhooks in one instance. */
export interface WebhookEngine {
  /** Works every `pollIntervalMs` from now on (only when `options.deliver`); the timer never keeps the process alive. */
  start(): void;
  /**
   * Asks for a round soon: `gatherMs` after the latest one started at the earliest (after the
   * current one when one is running); many nudges make one round. A no-op unless started.
   */
  nudge(): void;
  /** Runs one round now (after the current one, when one is running) and resolves when it is over. */
  runOnce(): Promise<void>;
  /**
   * Stops the timer, lets the attempt in flight finish, and resolves once the round is over; then
   * closes the kept-alive connections and forgets the opened secrets. Final.
   */
  stop(): Promise<void>;
}

/**
 * The webhook delivery engine (docs/webhooks.md). A round lists every endpoint and works each
 * enabled one whose lease it gets (worker.ts), a few at a time; the instances of a deployment
 * share the endpoints through the leases, and an endpoint's messages go out one at a time in
 * the order of the audit log. After a round, at most once an hour, it sweeps the finished
 * deliveries older than `WEBHOOK_DELIVERY_RETENTION_MS`. One round runs at a time per instance;
 * it never rejects.
 */
export function createWebhookEngine(deps: WebhookEngineDeps): WebhookEngine {
  const { options, logger } = deps;
  const owner = deps.instanceId ?? randomBytes(8).toString("hex");
  const agents = createWebhookAgents();
  const secrets = cachedOpener(deps.openSecret, OPENED_SECRETS_KEPT);
  const workerDeps = { ...deps, options, agents, openSecret: secrets.open };
  let stopped = false;
  let started = false;
  let ticking = false;
  let nudged = false;

  if (options.leaseMs <= options.timeoutMs)
    logger.warn(
      { event: "webhook.lease_too_short", leaseMs: options.leaseMs, timeoutMs: options.timeoutMs },
      "webhook leaseMs should be longer than timeoutMs",
    );
  const halted = () => stopped;
  const sweep = sweeper(deps);
  const runRound = oneAtATime(async () => {
    if (stopped) return;
    let endpoints: WebhookEndpoint[];
    try {
      endpoints = (await deps.store.listEndpoints(undefined)).filter((endpoint) => endpoint.enabled);
    } catch (error) {
      logger.error({ event: "webhook.store_failed", err: String(error) }, "could not list webhook endpoints");
      return;
    }
    await eachAtMost(ENDPOINTS_AT_ONCE, endpoints, (endpoint) =>
      halted() ? Promise.resolve() : workEndpoint(workerDeps, endpoint, owner, halted),
    );
    if (!halted()) await sweep();
  }, logger);
  const timer = roundTimer(() => tick(), options.gatherMs);
  const arm = (delayMs: number) => {
    if (started && !stopped) timer.arm(delayMs);
  };
  const tick = () => {
    timer.fired();
    ticking = true;
    nudged = false;
    void runRound().then(() => {
      ticking = false;
      arm(nudged ? timer.gatherLeft() : options.pollIntervalMs);
    });
  };

  return {
    start() {
      if (started || stopped || !options.deliver) return;
      started = true;
      arm(0);
    },
    nudge() {
      if (!started || stopped) return;
      if (ticking) nudged = true;
      else arm(timer.gatherLeft());
    },
    runOnce: () => runRound(),
    async stop() {
      stopped = true;
      timer.clear();
      await runRound.settled();
      agents.http.destroy();
      agents.https.destroy();
      secrets.clear();
    },
  };
}

/**
 * When an engine's next round runs: one timer, which a new request never moves later. Woken
 * rounds start `gatherMs` after the one before at the earliest (`gatherLeft`): rounds woken back to
 * back each paid their listing, lease, reads and write for the few events recorded meanwhile.
 */
function roundTimer(run: () => void, gatherMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let due = 0;
  // On the process's monotonic clock, as the timers run (not the core's clock, which tests stop).
  let startedAt = Number.NEGATIVE_INFINITY;
  return {
    /** Runs a round in `delayMs`, or sooner when one is armed for sooner. */
    arm(delayMs: number) {
      const at = performance.now() + delayMs;
      if (timer) {
        if (due <= at) return;
        clearTimeout(timer);
      }
      due = at;
      timer = setTimeout(run, delayMs);
      timer.unref?.();
    },
    /** The wait left before a woken round may start. */
    gatherLeft: () => Math.max(0, startedAt + gatherMs - performance.now()),
    /** The armed round has started. */
    fired() {
      timer = undefined;
      startedAt = performance.now();
    },
    clear() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * The sweep after a round: at most once per `WEBHOOK_SWEEP_INTERVAL_MS` (on the core's clock; the
 * first round sweeps), removes the finished deliveries made more than
 * `WEBHOOK_DELIVERY_RETENTION_MS` ago. Never rejects: a failure is logged (`webhook.sweep_failed`)
 * and the next sweep is an interval later.
 */
function sweeper({ store, clock, logger }: Pick<WebhookEngineDeps, "store" | "clock" | "logger">) {
  let sweptAt = Number.NEGATIVE_INFINITY;
  return async () => {
    const now = clock.now();
    if (now - sweptAt < WEBHOOK_SWEEP_INTERVAL_MS) return;
    sweptAt = now;
    try {
      const removed = await store.sweepDeliveries(now - WEBHOOK_DELIVERY_RETENTION_MS);
      logger.debug({ event: "webhook.swept", removed }, "swept finished webhook deliveries");
    } catch (error) {
      logger.error(
        { event: "webhook.sweep_failed", err: String(error) },
        "could not sweep webhook deliveries",
      );
    }
  };
}

/**
 * `open` keeping what it opened (sealed → plain), at most `limit` secrets, the least recently
 * used dropped first: a round signs with secrets opened in an earlier one without opening them
 * again. A rotated-out secret falls out as it stops being used; a failure is not kept.
 */
function cachedOpener(open: (sealed: string) => Promise<string>, limit: number) {
  const opened = new Map<string, string>();
  return {
    async open(sealed: string): Promise<string> {
      const known = opened.get(sealed);
      if (known !== undefined) {
        opened.delete(sealed);
        opened.set(sealed, known);
        return known;
      }
      const plain = await open(sealed);
      opened.set(sealed, plain);
      while (opened.size > limit) opened.delete(opened.keys().next().value as string);
      return plain;
    },
    clear: () => opened.clear(),
  };
}

/**
 * `round` run one at a time: a call while one runs waits for it and runs another after it (one
 * more at most, shared by every call meanwhile). Never rejects: a failure is logged.
 */
function oneAtATime(round: () => Promise<void>, logger: Logger) {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const run = (): Promise<void> => {
    if (queued) return queued;
    if (running) {
      queued = running.then(() => {
        queued = undefined;
        return run();
      });
      return queued;
    }
    running = round()
      .catch((error: unknown) => {
        logger.error({ event: "webhook.round_failed", err: String(error) }, "webhook round failed");
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return Object.assign(run, { settled: async () => await (queued ?? running) });
}

/** Runs `task` over `items` with at most `limit` at once; resolves when every one settled. */
async function eachAtMost<T>(
  limit: number,
  items: readonly T[],
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
