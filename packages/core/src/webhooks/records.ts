import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../ports/webhook-store.js";

/**
 * The endpoint's own fields only, as a deep copy (its `events` and `secrets` copied too, and
 * nothing else the given object carries): what a store keeps or hands out.
 */
export const webhookEndpointOf = (endpoint: WebhookEndpoint): WebhookEndpoint => ({
  id: endpoint.id,
  organizationId: endpoint.organizationId,
  url: endpoint.url,
  events: [...endpoint.events],
  enabled: endpoint.enabled,
  disabledReason: endpoint.disabledReason,
  secrets: endpoint.secrets.map((secret) => ({ sealed: secret.sealed, expiresAt: secret.expiresAt })),
  createdBy: endpoint.createdBy,
  createdAt: endpoint.createdAt,
  cursor: endpoint.cursor,
});

/** The delivery's own fields only, as a copy (nothing else the given object carries). */
export const webhookDeliveryOf = (delivery: WebhookDelivery): WebhookDelivery => ({
  id: delivery.id,
  endpointId: delivery.endpointId,
  entryId: delivery.entryId,
  seq: delivery.seq,
  type: delivery.type,
  status: delivery.status,
  attempts: delivery.attempts,
  createdAt: delivery.createdAt,
  lastAttemptAt: delivery.lastAttemptAt,
  lastStatusCode: delivery.lastStatusCode,
  lastError: delivery.lastError,
  nextAttemptAt: delivery.nextAttemptAt,
  redelivery: delivery.redelivery,
});

/** The attempt's own fields only, as a copy (nothing else the given object carries). */
export const webhookAttemptOf = (attempt: WebhookAttempt): WebhookAttempt => ({
  status: attempt.status,
  attempts: attempt.attempts,
  lastAttemptAt: attempt.lastAttemptAt,
  lastStatusCode: attempt.lastStatusCode,
  lastError: attempt.lastError,
  nextAttemptAt: attempt.nextAttemptAt,
});

/** What a new delivery is of: its id, its endpoint, the audit entry it carries, and whether it is a redelivery. */
export type NewWebhookDelivery = Pick<
  WebhookDelivery,
  "id" | "endpointId" | "entryId" | "seq" | "type" | "redelivery"
>;

/** A delivery made at `now` and due then: pending, never attempted. */
export function pendingWebhookDelivery(delivery: NewWebhookDelivery, now: number): WebhookDelivery {
  const { id, endpointId, entryId, seq, type, redelivery } = delivery;
  return {
    id,
    endpointId,
    entryId,
    seq,
    type,
    status: "pending",
    attempts: 0,
    createdAt: now,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: now,
    redelivery,
  };
}
