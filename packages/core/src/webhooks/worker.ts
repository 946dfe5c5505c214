import type { AuditEntry, AuditLogStore } from "../ports/audit-log-store.js";
import type { WebhookDelivery, WebhookDisabledReason, WebhookEndpoint } from "../ports/webhook-store.js";
import { attemptDelivery, type DeliverDeps, deliver, type EndpointWork, tellDisabled } from "./deliver.js";
import { endpointWants } from "./payload.js";
import { pendingWebhookDelivery } from "./records.js";

/** The audit entries read at once for one endpoint. */
export const AUDIT_READ_LIMIT = 100;

/** The most messages one batch sends before their deliveries and the cursor are written. */
export const BATCH_MESSAGES = 100;

/**
 * How long one batch sends before its deliveries and the cursor are written (ms): what a crash
 * sends again is at most this much, or `BATCH_MESSAGES`.
 */
export const BATCH_MS = 1_000;

/** What working an endpoint needs besides sending. */
export interface WorkerDeps extends DeliverDeps {
  auditLog: AuditLogStore;
  newId(): string;
  options: DeliverDeps["options"] & { leaseMs: number };
  /**
   * Whether an organization still exists (the organization store's read); undefined without
   * organizations. Read once per work of an organization's endpoint, before its first send.
   */
  organizationExists?: ((organizationId: string) => Promise<boolean>) | undefined;
}

/** An endpoint's work under one lease: where its cursor is and the entries read past it. */
interface OrderWork extends EndpointWork {
  cursor: number;
  /** Entries read past `cursor` and not taken into a batch yet, in `seq` order. */
  ahead: AuditEntry[];
  /** The `seq` of the last entry read (the next read starts after it). */
  readTo: number;
  /** Whether the last read came back short (nothing more was there then). */
  exhausted: boolean;
  /** Until when (ms) the lease was last taken or renewed: it is renewed once less than half is left. */
  leaseUntil: number;
  /** Whether the endpoint's organization was found to exist in this work (`scopeAlive`). */
  scopeChecked: boolean;
}

/**
 * Works `endpoint` under its lease until nothing is due: first its redeliveries (each sent once),
 * then its own messages in `seq` order (the pending one when it is due, then batches of the next
 * audit entries it wants: `sendBatch`). The endpoint is read again once the lease is taken, so the
 * work starts from the cursor as the last holder left it. Stops as soon as a lease-guarded write
 * is refused (another instance has the endpoint) or `halted()`; a store failure is logged and ends
 * the work (the cursor moves only in `advance`, so nothing is lost). An endpoint whose
 * organization is gone is deleted before anything is sent to it (`scopeAlive`). The lease is
 * released at the end.
 */
export async function workEndpoint(
  deps: WorkerDeps,
  listed: WebhookEndpoint,
  owner: string,
  halted: () => boolean,
): Promise<void> {
  const now = deps.clock.now();
  const leaseUntil = now + deps.options.leaseMs;
  try {
    if (!(await deps.store.tryLease(listed.id, owner, now, leaseUntil))) return;
  } catch (error) {
    storeFailed(deps, listed, error);
    return;
  }
  try {
    // Another instance may have moved the cursor since the round listed the endpoints; under the
    // lease only this instance moves it, so what is read now is where the work starts.
    const endpoint = await deps.store.findEndpoint(listed.id);
    if (endpoint === null || !endpoint.enabled) return;
    const work: OrderWork = {
      endpoint,
      owner,
      cursor: endpoint.cursor,
      ahead: [],
      readTo: endpoint.cursor,
      exhausted: false,
      leaseUntil,
      scopeChecked: false,
    };
    const pending = await deps.store.pendingDeliveries(endpoint.id);
    const redeliveries = pending.filter((delivery) => delivery.redelivery);
    if (await redeliver(deps, work, redeliveries, halted))
      await workOrder(deps, work, pending.find((delivery) => !delivery.redelivery) ?? null, halted);
  } catch (error) {
    storeFailed(deps, listed, error);
  } finally {
    await deps.store
      .releaseLease(listed.id, owner)
      .catch((error: unknown) => storeFailed(deps, listed, error));
  }
}

function storeFailed(deps: WorkerDeps, endpoint: WebhookEndpoint, error: unknown): void {
  deps.logger.error(
    { event: "webhook.store_failed", endpointId: endpoint.id, err: String(error) },
    "webhook store failed",
  );
}

/**
 * Before the work's first send to an organization's endpoint: whether the organization still
 * exists. Its deletion deletes its endpoints, but an endpoint created while it was being deleted
 * outlives it: such an endpoint is deleted here (`webhook.organization_gone`) and nothing is sent.
 */
async function scopeAlive(deps: WorkerDeps, work: OrderWork): Promise<boolean> {
  const { id, organizationId } = work.endpoint;
  if (work.scopeChecked || organizationId === null || deps.organizationExists === undefined) return true;
  if (await deps.organizationExists(organizationId)) {
    work.scopeChecked = true;
    return true;
  }
  deps.logger.warn(
    { event: "webhook.organization_gone", endpointId: id, organizationId },
    "deleted a webhook endpoint whose organization is gone",
  );
  await deps.store.deleteEndpoint(id);
  return false;
}

/**
 * Renews the lease before an attempt once less than half of `leaseMs` is left on it (not before
 * every attempt: that would be one more write per message); false when another instance has it
 * now. Skipping a renewal weakens nothing: `advance` and `recordAttempt` check the lease in the
 * store, so a write after it expired or was taken over is refused all the same.
 */
async function renew(deps: WorkerDeps, work: OrderWork): Promise<boolean> {
  const now = deps.clock.now();
  if (work.leaseUntil - now >= deps.options.leaseMs / 2) return true;
  const until = now + deps.options.leaseMs;
  if (!(await deps.store.tryLease(work.endpoint.id, work.owner, now, until))) return false;
  work.leaseUntil = until;
  return true;
}

/** Sends each redelivery once; false when the work must stop (lease lost, endpoint disabled). */
async function redeliver(
  deps: WorkerDeps,
  work: OrderWork,
  redeliveries: readonly WebhookDelivery[],
  halted: () => boolean,
): Promise<boolean> {
  for (const delivery of redeliveries) {
    if (halted() || !(await renew(deps, work)) || !(await scopeAlive(deps, work))) return false;
    const outcome = await deliver(deps, work, delivery, await findEntry(deps.auditLog, delivery));
    if (outcome === "lost" || outcome === "disabled") return false;
  }
  return true;
}

/**
 * Sends the endpoint's own messages in order while they are due: the pending one (a retry) first,
 * alone, when its time has come; then batch after batch.
 */
async function workOrder(
  deps: WorkerDeps,
  work: OrderWork,
  head: WebhookDelivery | null,
  halted: () => boolean,
): Promise<void> {
  if (head !== null) {
    if (halted() || !(await renew(deps, work))) return;
    if (head.nextAttemptAt !== null && head.nextAttemptAt > deps.clock.now()) return;
    if (!(await scopeAlive(deps, work))) return;
    const outcome = await deliver(deps, work, head, await findEntry(deps.auditLog, head));
    if (outcome !== "sent" && outcome !== "failed") return;
  }
  while (!halted() && (await sendBatch(deps, work, halted)));
}

/** The audit entry `delivery` carries, or null when the log no longer has it (swept). */
async function findEntry(auditLog: AuditLogStore, delivery: WebhookDelivery): Promise<AuditEntry | null> {
  const [entry] = await auditLog.list({ order: "asc", afterSeq: delivery.seq - 1, limit: 1 });
  return entry !== undefined && entry.id === delivery.entryId ? entry : null;
}

/** The next audit entry past the work's cursor, read `AUDIT_READ_LIMIT` at a time; null when none is there. */
async function nextEntry(deps: WorkerDeps, work: OrderWork): Promise<AuditEntry | null> {
  if (work.ahead.length === 0) {
    if (work.exhausted) return null;
    work.ahead = await deps.auditLog.list(auditQuery(work.endpoint, work.readTo));
    work.exhausted = work.ahead.length < AUDIT_READ_LIMIT;
    work.readTo = work.ahead.at(-1)?.seq ?? work.readTo;
  }
  return work.ahead.shift() ?? null;
}

/** What one batch sent, and up to where it takes the cursor. */
interface Batch {
  to: number;
  deliveries: WebhookDelivery[];
  disable: WebhookDisabledReason | null;
  /** Whether the work goes on after it (it stopped only at `BATCH_MESSAGES` or `BATCH_MS`). */
  more: boolean;
}

/**
 * Sends the next entries the endpoint wants, one at a time in `seq` order, then writes their
 * deliveries (as they ended) with the cursor past them in one `advance`: entries it does not want
 * are passed over in the same write. A batch ends after `BATCH_MESSAGES` messages or `BATCH_MS`,
 * at the first message that did not succeed (its delivery is written pending, with its retry's
 * time, or the endpoint disabled), when nothing more is there, or when the lease is lost or a
 * secret cannot be opened (the message is not passed). A crash before the write sends the batch
 * again (at least once); a refused write means another instance has the endpoint, and it sends
 * them again. True when the work goes on.
 */
async function sendBatch(deps: WorkerDeps, work: OrderWork, halted: () => boolean): Promise<boolean> {
  const from = work.cursor;
  const batch: Batch = { to: from, deliveries: [], disable: null, more: false };
  const started = deps.clock.now();
  for (;;) {
    if (batch.deliveries.length >= BATCH_MESSAGES || deps.clock.now() - started >= BATCH_MS) {
      batch.more = true;
      break;
    }
    if (halted()) break;
    const entry = await nextEntry(deps, work);
    if (entry === null) break;
    if (!endpointWants(work.endpoint, entry)) {
      batch.to = entry.seq;
      continue;
    }
    if (!(await renew(deps, work)) || !(await scopeAlive(deps, work))) return false;
    const delivery = newDelivery(deps, work.endpoint, entry);
    const settled = await attemptDelivery(deps, work, delivery, entry);
    if (settled === null) break;
    batch.to = entry.seq;
    batch.deliveries.push({ ...delivery, ...settled.attempt });
    if (settled.attempt.status !== "succeeded") {
      batch.disable = settled.disable;
      break;
    }
  }
  if (batch.to === from) return false;
  const lease = { owner: work.owner, now: deps.clock.now() };
  if (!(await deps.store.advance(work.endpoint.id, lease, from, batch.to, batch.deliveries, batch.disable)))
    return false;
  work.cursor = batch.to;
  if (batch.disable !== null) {
    await tellDisabled(deps, work.endpoint, batch.disable);
    return false;
  }
  return batch.more;
}

function auditQuery(endpoint: WebhookEndpoint, cursor: number) {
  const [only] = endpoint.events;
  return {
    organizationId: endpoint.organizationId ?? undefined,
    // One event type: the store filters (`*` and several types are filtered here).
    type: endpoint.events.length === 1 && only !== "*" ? only : undefined,
    order: "asc" as const,
    afterSeq: cursor,
    limit: AUDIT_READ_LIMIT,
  };
}

function newDelivery(deps: WorkerDeps, endpoint: WebhookEndpoint, entry: AuditEntry): WebhookDelivery {
  const { id: entryId, seq, type } = entry;
  const delivery = { id: deps.newId(), endpointId: endpoint.id, entryId, seq, type, redelivery: false };
  return pendingWebhookDelivery(delivery, deps.clock.now());
}
