/**
 * Why an endpoint stopped receiving: its receiver answered 410 Gone (`gone`), every retry of one
 * message failed for the whole back-off (`failing`), or someone turned it off (`manual`).
 */
export type WebhookDisabledReason = "gone" | "failing" | "manual";

/** One signing secret of an endpoint, sealed by the core (never stored in the clear). */
export interface WebhookSecret {
  /** The secret as the core sealed it (an opaque string to the store). */
  sealed: string;
  /** Until when (ms) a rotated-out secret still signs beside the new one; null for the current one. */
  expiresAt: number | null;
}

/**
 * A webhook endpoint: where the events of an organization (or of the whole deployment) are sent.
 * Its deliveries follow the audit log, which is the outbox: `cursor` is the `seq` of the last
 * audit entry the endpoint has dealt with (sent, or passed over as not one of its `events`).
 */
export interface WebhookEndpoint {
  /** Unique, minted by the core (lowercase hex). */
  id: string;
  /** The organization whose events it receives; null for a deployment endpoint (every event). */
  organizationId: string | null;
  url: string;
  /** The event types it receives (`SecurityEventType` names), or `["*"]` for every one. */
  events: string[];
  enabled: boolean;
  /** Why it is disabled; null while enabled. */
  disabledReason: WebhookDisabledReason | null;
  /** Its signing secrets: the current one first, then rotated-out ones until they expire. */
  secrets: WebhookSecret[];
  /** The user who created it (emailed when it is disabled); null when the host made it. */
  createdBy: string | null;
  createdAt: number;
  /** The audit `seq` the endpoint has dealt with up to (the deployment's head when it was created). */
  cursor: number;
}

export type WebhookDeliveryStatus = "pending" | "succeeded" | "failed";

/** One message to one endpoint, and how its attempts went. */
export interface WebhookDelivery {
  /** Unique, minted by the core (lowercase hex). */
  id: string;
  endpointId: string;
  /** The audit entry it carries (its id is the message's `webhook-id`). */
  entryId: string;
  /** The audit entry's `seq`. */
  seq: number;
  /** The event type (the payload's `type`). */
  type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** When it was made (ms). */
  createdAt: number;
  lastAttemptAt: number | null;
  /** The receiver's last HTTP status; null when it did not answer (refused, timed out, blocked). */
  lastStatusCode: number | null;
  /** Why the last attempt failed, in a few words (never a secret); null when it did not fail. */
  lastError: string | null;
  /** When the next attempt is due (ms); null once it succeeded or failed for good. */
  nextAttemptAt: number | null;
  /**
   * A redelivery someone asked for (`POST …/redeliver`): sent beside the endpoint's order, not in
   * it. False for the endpoint's own deliveries, which go one at a time in `seq` order.
   */
  redelivery: boolean;
}

/** What an attempt changed on a delivery. */
export type WebhookAttempt = Pick<
  WebhookDelivery,
  "status" | "attempts" | "lastAttemptAt" | "lastStatusCode" | "lastError" | "nextAttemptAt"
>;

/** What `updateEndpoint` may change. */
export type WebhookEndpointPatch = Partial<
  Pick<WebhookEndpoint, "url" | "events" | "enabled" | "disabledReason" | "secrets">
>;

/**
 * Webhook endpoints and their deliveries (docs/webhooks.md). The messages themselves are the audit
 * log's entries (the outbox: written with the change's events, before the call answers); this store
 * keeps where each endpoint is in that log, its deliveries, and the leases by which the instances
 * of a deployment share the work: an endpoint is worked on by the instance that holds its lease,
 * and every write of that work names the lease (`owner`) and is refused once the lease is lost, so
 * a stalled instance cannot undo what the next one did. Every method rejects only when the store
 * itself fails.
 */
export interface WebhookStore {
  /**
   * Adds `endpoint` (its id is new): `created`. `limit-reached`, storing nothing, when its scope
   * (its `organizationId`; null: the deployment's endpoints) already has `limits.maxPerScope`
   * endpoints, disabled ones included (they count until deleted). The count and the write are one
   * atomic step: of N concurrent creations in a scope with room for k more, exactly k are created.
   */
  createEndpoint(
    endpoint: WebhookEndpoint,
    limits: { maxPerScope: number },
  ): Promise<"created" | "limit-reached">;
  /** The endpoint, or null when none has this id. */
  findEndpoint(id: string): Promise<WebhookEndpoint | null>;
  /**
   * The endpoints of `organizationId` (null: the deployment's own), oldest first; `undefined`: every
   * endpoint of every scope (for the delivery workers).
   */
  listEndpoints(organizationId: string | null | undefined): Promise<WebhookEndpoint[]>;
  /** Changes the fields of `patch`; resolves to the endpoint after it, or null when it is gone. */
  updateEndpoint(id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint | null>;
  /** Removes the endpoint with its deliveries and lease; false when it was not there. */
  deleteEndpoint(id: string): Promise<boolean>;
  /**
   * Takes or renews the endpoint's lease for `owner` until `until` (ms), when it is free, expired
   * (its `until` ≤ `now`) or already `owner`'s. Atomic: of N concurrent callers with different
   * owners, at most one gets true. False when another owner holds it or the endpoint is gone.
   */
  tryLease(endpointId: string, owner: string, now: number, until: number): Promise<boolean>;
  /** Gives the lease up when `owner` holds it (a no-op otherwise). */
  releaseLease(endpointId: string, owner: string): Promise<void>;
  /**
   * Under `owner`'s lease (held and not expired at `now`): moves the endpoint's cursor from `from`
   * to `to`, adds `deliveries` (the endpoint's, each as given: the messages of the entries passed,
   * already sent or still pending) and, when `disable` is given, disables the endpoint with that
   * reason, in one atomic write. False, with nothing written, when the lease is not held, the
   * cursor is not at `from` or a delivery is another endpoint's.
   */
  advance(
    endpointId: string,
    lease: { owner: string; now: number },
    from: number,
    to: number,
    deliveries: readonly WebhookDelivery[],
    disable?: WebhookDisabledReason | null,
  ): Promise<boolean>;
  /**
   * Under `owner`'s lease: writes an attempt's outcome on the delivery and, when `disable` is given,
   * disables the endpoint with that reason, in one atomic write. False, with nothing written, when
   * the lease is not held or the delivery is not the endpoint's.
   */
  recordAttempt(
    endpointId: string,
    lease: { owner: string; now: number },
    deliveryId: string,
    attempt: WebhookAttempt,
    disable: WebhookDisabledReason | null,
  ): Promise<boolean>;
  /** Adds a delivery outside the endpoint's order (a redelivery); nothing when the endpoint is gone. */
  addDelivery(delivery: WebhookDelivery): Promise<void>;
  /** The endpoint's pending deliveries, by `createdAt` then id (the order ones first, in `seq` order). */
  pendingDeliveries(endpointId: string): Promise<WebhookDelivery[]>;
  /**
   * The endpoint's deliveries, newest first (by `createdAt`, then id), at most `limit`; those before
   * `before` (a delivery id) when given, none when it is not one of the endpoint's.
   */
  listDeliveries(
    endpointId: string,
    page: { limit: number; before?: string | undefined },
  ): Promise<WebhookDelivery[]>;
  /** The delivery, or null when the endpoint has none with this id. */
  findDelivery(endpointId: string, deliveryId: string): Promise<WebhookDelivery | null>;
  /** Removes deliveries that are no longer pending and were made before `olderThan`; resolves to how many. */
  sweepDeliveries(olderThan: number): Promise<number>;
}
