import type { AuditEntry } from "../ports/audit-log-store.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookStore,
} from "../ports/webhook-store.js";
import type { LookupAddresses } from "./address-guard.js";
import { webhookBody } from "./payload.js";
import { nextAttemptAt } from "./schedule.js";
import { sendWebhook, type WebhookAgents, type WebhookSendResult } from "./send.js";
import { secretsInUse, signWebhook } from "./signing.js";

/** What sending a delivery needs. */
export interface DeliverDeps {
  store: WebhookStore;
  /** Opens a sealed endpoint secret (the engine keeps the ones it opened: `cachedOpener`). */
  openSecret(sealed: string): Promise<string>;
  options: { allowPrivateNetworks: boolean; retryScale: number; timeoutMs: number };
  clock: Clock;
  logger: Logger;
  onDisabled(endpoint: WebhookEndpoint, reason: WebhookDisabledReason): Promise<void>;
  lookup?: LookupAddresses | undefined;
  /** The engine's kept-alive connections; without them each send opens its own. */
  agents?: WebhookAgents | undefined;
}

/** One instance's hold on one endpoint while it works it. */
export interface EndpointWork {
  endpoint: WebhookEndpoint;
  /** The lease's owner: this instance's id. */
  owner: string;
}

/**
 * How an attempt ended: `sent` (2xx), `retry` (a retry is scheduled), `failed` (failed for good
 * without disabling: a redelivery, or the audit entry is gone), `disabled` (the endpoint too), or
 * `lost` (the lease went to another instance, or a secret could not be opened: nothing recorded).
 */
export type DeliverOutcome = "sent" | "retry" | "failed" | "disabled" | "lost";

/**
 * What an attempt's `result` at `now` writes on `delivery`: succeeded on a 2xx; on a 410, failed and
 * the endpoint disabled (`gone`); a redelivery fails once for good; any other failure waits for the
 * next step of the back-off, or fails for good and disables the endpoint (`failing`) once it is used up.
 */
export function settleAttempt(
  delivery: Pick<WebhookDelivery, "attempts" | "redelivery">,
  result: WebhookSendResult,
  now: number,
  retryScale: number,
): { attempt: WebhookAttempt; disable: WebhookDisabledReason | null } {
  const base = {
    attempts: delivery.attempts + 1,
    lastAttemptAt: now,
    lastStatusCode: result.statusCode,
    lastError: result.ok ? null : (result.error ?? "failed"),
  };
  if (result.ok) return { attempt: { ...base, status: "succeeded", nextAttemptAt: null }, disable: null };
  if (result.statusCode === 410)
    return { attempt: { ...base, status: "failed", nextAttemptAt: null }, disable: "gone" };
  if (delivery.redelivery)
    return { attempt: { ...base, status: "failed", nextAttemptAt: null }, disable: null };
  const next = nextAttemptAt(base.attempts, now, retryScale);
  if (next === null)
    return { attempt: { ...base, status: "failed", nextAttemptAt: null }, disable: "failing" };
  return { attempt: { ...base, status: "pending", nextAttemptAt: next }, disable: null };
}

/** The plain secrets that sign at `now`, current first. */
async function signingSecrets(deps: DeliverDeps, work: EndpointWork, now: number): Promise<string[]> {
  const plain: string[] = [];
  for (const secret of secretsInUse(work.endpoint.secrets, now))
    plain.push(await deps.openSecret(secret.sealed));
  return plain;
}

/** The entry was swept from the audit log before it was sent: nothing left to send. */
const EXPIRED: WebhookSendResult = { ok: false, statusCode: null, error: "audit entry expired" };

/** Signs and sends `entry` to the work's endpoint; null when its secrets could not be opened. */
async function sendEntry(
  deps: DeliverDeps,
  work: EndpointWork,
  entry: AuditEntry,
): Promise<WebhookSendResult | null> {
  const at = deps.clock.now();
  let secrets: string[];
  try {
    secrets = await signingSecrets(deps, work, at);
    if (secrets.length === 0) throw new Error("no secret in use");
  } catch (error) {
    deps.logger.error(
      { event: "webhook.secret_failed", endpointId: work.endpoint.id, err: String(error) },
      "could not open a webhook endpoint's secret",
    );
    return null;
  }
  const body = webhookBody(entry);
  const headers = signWebhook({ id: entry.id, timestampMs: at, body, secrets });
  return sendWebhook({
    url: work.endpoint.url,
    body,
    headers,
    timeoutMs: deps.options.timeoutMs,
    allowPrivateNetworks: deps.options.allowPrivateNetworks,
    lookup: deps.lookup,
    agents: deps.agents,
  });
}

/** An attempt's outcome: what it writes on the delivery, and the reason to disable the endpoint with. */
export type SettledAttempt = ReturnType<typeof settleAttempt>;

/**
 * Sends `delivery` (carrying `entry`, or null when the audit log no longer has it: then it fails
 * for good without a send) once and settles the outcome (logged); null when the endpoint's
 * secrets could not be opened (nothing was sent). Writes nothing.
 */
export async function attemptDelivery(
  deps: DeliverDeps,
  work: EndpointWork,
  delivery: WebhookDelivery,
  entry: AuditEntry | null,
): Promise<SettledAttempt | null> {
  const result = entry === null ? EXPIRED : await sendEntry(deps, work, entry);
  if (result === null) return null;
  const now = deps.clock.now();
  const settled =
    entry === null
      ? settleAttempt({ attempts: delivery.attempts, redelivery: true }, result, now, 1)
      : settleAttempt(delivery, result, now, deps.options.retryScale);
  logAttempt(deps.logger, work.endpoint, delivery, settled.attempt);
  return settled;
}

/**
 * Sends `delivery` once (`attemptDelivery`), records the outcome under the work's lease, and
 * tells `onDisabled` when that disabled the endpoint.
 */
export async function deliver(
  deps: DeliverDeps,
  work: EndpointWork,
  delivery: WebhookDelivery,
  entry: AuditEntry | null,
): Promise<DeliverOutcome> {
  const { endpoint } = work;
  const settled = await attemptDelivery(deps, work, delivery, entry);
  if (settled === null) return "lost";
  const lease = { owner: work.owner, now: deps.clock.now() };
  if (!(await deps.store.recordAttempt(endpoint.id, lease, delivery.id, settled.attempt, settled.disable)))
    return "lost";
  if (settled.disable !== null) {
    await tellDisabled(deps, endpoint, settled.disable);
    return "disabled";
  }
  if (settled.attempt.status === "succeeded") return "sent";
  return settled.attempt.status === "pending" ? "retry" : "failed";
}

function logAttempt(
  logger: Logger,
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  attempt: WebhookAttempt,
) {
  const fields = {
    endpointId: endpoint.id,
    deliveryId: delivery.id,
    entryId: delivery.entryId,
    type: delivery.type,
    attempts: attempt.attempts,
    statusCode: attempt.lastStatusCode,
  };
  logger.debug({ event: "webhook.attempt", ...fields, status: attempt.status }, "webhook attempt");
  if (attempt.status !== "succeeded")
    logger.warn(
      {
        event: "webhook.attempt_failed",
        ...fields,
        error: attempt.lastError,
        nextAttemptAt: attempt.nextAttemptAt,
      },
      "webhook attempt failed",
    );
}

/** Logs that `endpoint` was disabled and tells `onDisabled` (its failure is logged, never thrown). */
export async function tellDisabled(
  deps: DeliverDeps,
  endpoint: WebhookEndpoint,
  reason: WebhookDisabledReason,
): Promise<void> {
  deps.logger.warn(
    { event: "webhook.endpoint_disabled", endpointId: endpoint.id, reason },
    "webhook endpoint disabled",
  );
  try {
    await deps.onDisabled({ ...endpoint, enabled: false, disabledReason: reason }, reason);
  } catch (error) {
    deps.logger.error(
      { event: "webhook.notify_failed", endpointId: endpoint.id, err: String(error) },
      "could not tell about a disabled webhook endpoint",
    );
  }
}
