import type { AuditEntry, AuditLogStore } from "../ports/audit-log-store.js";
import type { WebhookDelivery, WebhookEndpoint } from "../ports/webhook-store.js";
import { type DeliverDeps, deliver, type EndpointWork } from "./deliver.js";
import { endpointWants } from "./payload.js";
import { pendingWebhookDelivery } from "./records.js";

/** The audit entries read at once for one endpoint. */
export const AUDIT_READ_LIMIT = 100;

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
  /** Entries read past `cursor` and not dealt with yet, in `seq` order. */
  ahead: AuditEntry[];
  /** Whether the last read came back short (nothing more was there then). */
  exhausted: boolean;
  /** Until when (ms) the lease was last taken or renewed: it is renewed once less than half is left. */
  leaseUntil: number;
  /** Whether the cursor was read again after a refused advance (once per work). */
  refreshed: boolean;
  /** Whether the endpoint's organization was found to exist in this work (`scopeAlive`). */
  scopeChecked: boolean;
}

/**
 * Works `endpoint` under its lease until nothing is due: first its redeliveries (each sent once),
 * then its own messages one at a time in `seq` order (the pending one when it is due, else the
 * next audit entry it wants). Stops as soon as a lease-guarded write is refused (another
 * instance has the endpoint) or `halted()`; a store failure is logged and ends the work (the
 * cursor moves only in `advance`, so nothing is lost). An endpoint whose organization is gone is
 * deleted before anything is sent to it (`scopeAlive`). The lease is released at the end.
 */
export async function workEndpoint(
  deps: WorkerDeps,
  endpoint: WebhookEndpoint,
  owner: string,
  halted: () => boolean,
): Promise<void> {
  const now = deps.clock.now();
  const leaseUntil = now + deps.options.leaseMs;
  try {
    if (!(await deps.store.tryLease(endpoint.id, owner, now, leaseUntil))) return;
  } catch (error) {
    storeFailed(deps, endpoint, error);
    return;
  }
  const work: OrderWork = {
    endpoint,
    owner,
    cursor: endpoint.cursor,
    ahead: [],
    exhausted: false,
    leaseUntil,
    refreshed: false,
    scopeChecked: false,
  };
  try {
    const pending = await deps.store.pendingDeliveries(endpoint.id);
    const redeliveries = pending.filter((delivery) => delivery.redelivery);
    if (await redeliver(deps, work, redeliveries, halted))
      await workOrder(deps, work, pending.find((delivery) => !delivery.redelivery) ?? null, halted);
  } catch (error) {
    storeFailed(deps, endpoint, error);
  } finally {
    await deps.store
      .releaseLease(endpoint.id, owner)
      .catch((error: unknown) => storeFailed(deps, endpoint, error));
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

/** Sends the endpoint's own messages in order while they are due. */
async function workOrder(
  deps: WorkerDeps,
  work: OrderWork,
  head: WebhookDelivery | null,
  halted: () => boolean,
): Promise<void> {
  let current = head;
  while (!halted()) {
    if (!(await renew(deps, work))) return;
    let entry: AuditEntry | null;
    if (current !== null) {
      if (current.nextAttemptAt !== null && current.nextAttemptAt > deps.clock.now()) return;
      entry = await findEntry(deps.auditLog, current);
    } else {
      const next = await nextWanted(deps, work);
      if (next === null) return;
      current = next.delivery;
      entry = next.entry;
    }
    if (!(await scopeAlive(deps, work))) return;
    const outcome = await deliver(deps, work, current, entry);
    if (outcome !== "sent" && outcome !== "failed") return;
    current = null;
  }
}

/** The audit entry `delivery` carries, or null when the log no longer has it (swept). */
async function findEntry(auditLog: AuditLogStore, delivery: WebhookDelivery): Promise<AuditEntry | null> {
  const [entry] = await auditLog.list({ order: "asc", afterSeq: delivery.seq - 1, limit: 1 });
  return entry !== undefined && entry.id === delivery.entryId ? entry : null;
}

/**
 * Moves the cursor to the next entry the endpoint wants, adding its pending delivery in the same
 * write (past entries it does not want, without one); null when there is none (or the lease is lost).
 */
async function nextWanted(
  deps: WorkerDeps,
  work: OrderWork,
): Promise<{ delivery: WebhookDelivery; entry: AuditEntry } | null> {
  for (;;) {
    if (work.ahead.length === 0) {
      if (work.exhausted) return null;
      work.ahead = await deps.auditLog.list(auditQuery(work.endpoint, work.cursor));
      work.exhausted = work.ahead.length < AUDIT_READ_LIMIT;
      if (work.ahead.length === 0) return null;
    }
    const index = work.ahead.findIndex((entry) => endpointWants(work.endpoint, entry));
    const entry = index === -1 ? undefined : work.ahead[index];
    const to = entry?.seq ?? (work.ahead.at(-1) as AuditEntry).seq;
    const delivery = entry ? newDelivery(deps, work.endpoint, entry) : null;
    const lease = { owner: work.owner, now: deps.clock.now() };
    if (await deps.store.advance(work.endpoint.id, lease, work.cursor, to, delivery)) {
      work.cursor = to;
      work.ahead = index === -1 ? [] : work.ahead.slice(index + 1);
      if (entry && delivery) return { delivery, entry };
    } else if (!(await refreshCursor(deps, work))) return null;
  }
}

/**
 * After a refused advance: when the cursor moved since the endpoints were listed (another
 * instance worked the endpoint in between), starts again from where it is now. False when it did
 * not move (the lease is lost), or it was already read again once.
 */
async function refreshCursor(deps: WorkerDeps, work: OrderWork): Promise<boolean> {
  if (work.refreshed) return false;
  work.refreshed = true;
  const current = await deps.store.findEndpoint(work.endpoint.id);
  if (current === null || !current.enabled || current.cursor === work.cursor) return false;
  work.endpoint = current;
  work.cursor = current.cursor;
  work.ahead = [];
  work.exhausted = false;
  return true;
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
