import { z } from "zod";
import { SECURITY_EVENT_TYPES } from "../events.js";
import type {
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookDisabledReason,
  WebhookEndpoint,
} from "../ports/webhook-store.js";

/** A webhook endpoint as its managers see it: never its secrets. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  /** The event types it receives, or `["*"]` for every one. */
  events: string[];
  enabled: boolean;
  /** Why it is off: `gone` (410), `failing` (a message failed through every retry), `manual`; null while on. */
  disabledReason: WebhookDisabledReason | null;
  /** ISO 8601. */
  createdAt: string;
}

/** One message to an endpoint and how its attempts went. */
export interface WebhookDeliveryView {
  id: string;
  /** The event type (the payload's `type`). */
  event: string;
  attempts: number;
  status: WebhookDeliveryStatus;
  /** ISO 8601; null before the first attempt. */
  lastAttemptAt: string | null;
  /** The receiver's last HTTP status; null when it did not answer (refused, timed out, blocked). */
  lastStatusCode: number | null;
  /** Why the last attempt failed, in a few words; null when it did not fail. */
  lastError: string | null;
  /** ISO 8601: when the next attempt is due; null once it succeeded or failed for good. */
  nextAttemptAt: string | null;
  /** ISO 8601: when the delivery was made. */
  createdAt: string;
  /** True for a redelivery someone asked for, false for the endpoint's own delivery of the event. */
  redelivery: boolean;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toWebhookEndpointView(endpoint: WebhookEndpoint): WebhookEndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: [...endpoint.events],
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    createdAt: new Date(endpoint.createdAt).toISOString(),
  };
}

export function toWebhookDeliveryView(delivery: WebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.id,
    event: delivery.type,
    attempts: delivery.attempts,
    status: delivery.status,
    lastAttemptAt: iso(delivery.lastAttemptAt),
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    createdAt: new Date(delivery.createdAt).toISOString(),
    redelivery: delivery.redelivery,
  };
}

/** The longest URL an endpoint may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2000;
/** The most event types one endpoint may list. */
export const MAX_WEBHOOK_EVENTS = 100;

const KNOWN_EVENTS: ReadonlySet<string> = new Set(SECURITY_EVENT_TYPES);

/**
 * `events`: 1 to 100 event type names Portcullis sends (`unknown_event` at the item otherwise),
 * each once (`duplicate`), or `["*"]` alone for every event (`*` beside names is `invalid`).
 */
const eventsField = z
  .array(z.string().max(100))
  .min(1)
  .max(MAX_WEBHOOK_EVENTS)
  .superRefine((events, ctx) => {
    if (events.includes("*") && events.length > 1) {
      ctx.addIssue({ code: "custom", message: "`*` stands alone", params: { rule: "invalid" } });
      return;
    }
    const seen = new Set<string>();
    for (const [index, event] of events.entries()) {
      if (event !== "*" && !KNOWN_EVENTS.has(event))
        ctx.addIssue({
          code: "custom",
          message: "unknown event",
          path: [index],
          params: { rule: "unknown_event" },
        });
      else if (seen.has(event))
        ctx.addIssue({
          code: "custom",
          message: "listed twice",
          path: [index],
          params: { rule: "duplicate" },
        });
      seen.add(event);
    }
  });

/**
 * `POST …/webhooks`: `{ url, events }`. The URL's form is checked here (an http or https URL of at
 * most 2000 characters); whether it may be used (https, public addresses) when it is registered.
 */
export const createWebhookInput = z.object({
  url: z.url({ protocol: /^https?$/ }).max(MAX_WEBHOOK_URL_LENGTH),
  events: eventsField,
});

const updateFields = { events: eventsField.optional(), enabled: z.boolean().optional() };
const somethingToChange = [
  (input: { events?: unknown; enabled?: unknown }) =>
    input.events !== undefined || input.enabled !== undefined,
  { message: "nothing to change", params: { rule: "required" } },
] as const;

/** `PATCH …/webhooks/:endpointId`: `{ events?, enabled? }`, at least one of them. */
export const updateWebhookInput = z.object(updateFields).refine(...somethingToChange);

/** Which endpoints: an organization's (`organizationId`), else the deployment's. */
const scope = { organizationId: z.string().max(256).optional() };
/** One endpoint of the scope (an id of another shape is `NOT_FOUND`, as an unknown one). */
const endpointRef = { ...scope, endpointId: z.string().max(256) };

/** `auth.webhooks.create`'s input: the body and the scope. */
export const createWebhookCall = createWebhookInput.extend(scope);
/** `auth.webhooks.list`'s input. */
export const listWebhooksCall = z.object(scope).optional();
/** `auth.webhooks.update`'s input: the endpoint, and the body's fields. */
export const updateWebhookCall = z.object({ ...endpointRef, ...updateFields }).refine(...somethingToChange);
/** The input of `delete` and `rotateSecret`: the endpoint. */
export const webhookEndpointCall = z.object(endpointRef);
/** `auth.webhooks.listDeliveries`'s input: `limit` 1 to 100 (also as text; default 20), `before` a delivery id. */
export const listDeliveriesCall = z.object({
  ...endpointRef,
  limit: z.coerce.number().int().min(1).max(100).optional(),
  before: z.string().max(256).optional(),
});
/** `auth.webhooks.redeliver`'s input: the endpoint and one of its deliveries. */
export const redeliverCall = z.object({ ...endpointRef, deliveryId: z.string().max(256) });

/** A webhook endpoint's or delivery's id as the core mints them: lowercase hex. */
export function isWebhookId(id: string): boolean {
  return /^[0-9a-f]{16,64}$/.test(id);
}
