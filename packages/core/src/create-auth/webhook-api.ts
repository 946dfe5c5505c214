// The `auth.webhooks` group of the `Auth` object (docs/webhooks.md). Re-exported from auth.ts.
import type { Call } from "../model.js";
import type { WebhookDeliveryView, WebhookEndpointView } from "../webhooks/views.js";

export type { WebhookDeliveryView, WebhookEndpointView } from "../webhooks/views.js";

/** Which endpoints a call is about: an organization's (`organizationId`), else the deployment's. */
export interface WebhookScopeInput {
  /** The organization whose endpoints these are (needs `webhook:manage` there); absent: the deployment's (the back office). */
  organizationId?: string | undefined;
}

/** One endpoint of the scope. */
export interface WebhookEndpointInput extends WebhookScopeInput {
  endpointId: string;
}

/** `POST …/webhooks`'s body, and the scope. */
export interface CreateWebhookInput extends WebhookScopeInput {
  /** Where the events go: https (http only with `allowPrivateNetworks`), at most 2000 characters. */
  url: string;
  /** 1 to 100 event types (`SecurityEventType` names), each once, or `["*"]` for every one. */
  events: string[];
}

/** `PATCH …/webhooks/:endpointId`'s body (at least one field), and the endpoint. */
export interface UpdateWebhookInput extends WebhookEndpointInput {
  /** The event types it receives from now on. */
  events?: string[] | undefined;
  /** Turns it on (clearing `disabledReason`) or off (`manual`). */
  enabled?: boolean | undefined;
}

/** A page of an endpoint's deliveries. */
export interface ListWebhookDeliveriesInput extends WebhookEndpointInput {
  /** 1 to 100 (also as text); default 20. */
  limit?: number | string | undefined;
  /** A delivery id: only those older than it (the last id of the previous page). */
  before?: string | undefined;
}

/**
 * Webhook endpoints of organizations and of the deployment (docs/webhooks.md), and this instance's
 * delivery worker. Every management method takes the signed-in caller's `call.principal` and
 * fails closed: without one, `AUTHENTICATION_REQUIRED` (an API key's is refused with
 * `API_KEY_NOT_ALLOWED`). With `organizationId`, the caller must be a member with
 * `webhook:manage` (a non-member gets `ORGANIZATION_NOT_FOUND`, as for an organization that does
 * not exist; a member without it `PERMISSION_DENIED`); without it, the deployment's endpoints
 * are the back office's (`admin.authorize` and `call.stepUpToken`, as `auth.admin.*`). An
 * endpoint of another scope is `NOT_FOUND`. Each rejects with `NOT_FOUND` when `webhooks` is not
 * configured. The events name the caller as `actor`. Each reads `call.request`.
 */
export interface WebhookApi {
  /** True when `webhooks` (with `stores.webhooks` and `stores.auditLog`) is configured. */
  readonly enabled: boolean;
  /**
   * A new endpoint; an organization's needs `call.stepUpToken`. `secret` (`whsec_…`) is the only
   * time the signing secret is shown: the store keeps it sealed.
   * @throws `USE_CASE_ERRORS.webhooks.create`'s codes (use-case-errors.ts)
   */
  create(call: Call, input: CreateWebhookInput): Promise<{ endpoint: WebhookEndpointView; secret: string }>;
  /**
   * The scope's endpoints, oldest first, without their secrets.
   * @throws `USE_CASE_ERRORS.webhooks.list`'s codes (use-case-errors.ts)
   */
  list(call: Call, input?: WebhookScopeInput): Promise<{ items: WebhookEndpointView[] }>;
  /**
   * Changes the event types, or turns the endpoint on (after a 410 or a failure for good: it goes
   * on from where it stopped) or off.
   * @throws `USE_CASE_ERRORS.webhooks.update`'s codes (use-case-errors.ts)
   */
  update(call: Call, input: UpdateWebhookInput): Promise<{ endpoint: WebhookEndpointView }>;
  /**
   * Removes the endpoint with its deliveries.
   * @throws `USE_CASE_ERRORS.webhooks.delete`'s codes (use-case-errors.ts)
   */
  delete(call: Call, input: WebhookEndpointInput): Promise<{ success: true }>;
  /**
   * A new signing secret, shown once; an organization's endpoint needs `call.stepUpToken`. The
   * old one keeps signing beside it for 24 hours.
   * @throws `USE_CASE_ERRORS.webhooks.rotateSecret`'s codes (use-case-errors.ts)
   */
  rotateSecret(call: Call, input: WebhookEndpointInput): Promise<{ secret: string }>;
  /**
   * The endpoint's deliveries, newest first, a page at a time.
   * @throws `USE_CASE_ERRORS.webhooks.listDeliveries`'s codes (use-case-errors.ts)
   */
  listDeliveries(call: Call, input: ListWebhookDeliveriesInput): Promise<{ items: WebhookDeliveryView[] }>;
  /**
   * Sends one of the endpoint's messages again (once, beside its order; the same `webhook-id`).
   * @throws `USE_CASE_ERRORS.webhooks.redeliver`'s codes (use-case-errors.ts)
   */
  redeliver(
    call: Call,
    input: WebhookEndpointInput & { deliveryId: string },
  ): Promise<{ delivery: WebhookDeliveryView }>;
  /**
   * Runs one round of this instance's delivery worker now and resolves when it is over: every
   * enabled endpoint whose lease it gets is sent what is due. For tests and scripts (with
   * `webhooks.deliver: false`, the only way this instance sends). Never rejects; resolves at once
   * when webhooks are off.
   */
  deliverNow(): Promise<void>;
  /**
   * Stops this instance's delivery worker (for shutdown and tests): no new round starts, the
   * attempt in flight finishes, and the promise resolves once the round is over. Final.
   */
  stop(): Promise<void>;
}
