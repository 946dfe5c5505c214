import {
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointPatch,
  type WebhookStore,
  webhookAttemptOf,
  webhookDeliveryOf,
  webhookEndpointOf,
} from "@portcullis/core";

/** The most deliveries one `listDeliveries` returns, whatever its `limit`. */
const LIST_LIMIT = 1_000;

const PATCH_FIELDS = [
  "url",
  "events",
  "enabled",
  "disabledReason",
  "secrets",
] as const satisfies readonly (keyof WebhookEndpointPatch)[];

/** By `createdAt`, then id: oldest first. */
const byAge = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

interface Lease {
  owner: string;
  until: number;
}

/** What the store holds: endpoints, leases and each endpoint's deliveries by id. */
interface State {
  endpoints: Map<string, WebhookEndpoint>;
  leases: Map<string, Lease>;
  /** An endpoint without deliveries has no entry. */
  deliveries: Map<string, Map<string, WebhookDelivery>>;
}

/** Stores a copy of `delivery` among its endpoint's. */
function keep(state: State, delivery: WebhookDelivery): void {
  const own = state.deliveries.get(delivery.endpointId) ?? new Map<string, WebhookDelivery>();
  state.deliveries.set(delivery.endpointId, own);
  own.set(delivery.id, webhookDeliveryOf(delivery));
}

function endpointMethods({ endpoints, leases, deliveries }: State) {
  return {
    async createEndpoint(endpoint, { maxPerScope }) {
      let inScope = 0;
      for (const other of endpoints.values())
        if (other.organizationId === endpoint.organizationId) inScope += 1;
      if (inScope >= maxPerScope) return "limit-reached";
      endpoints.set(endpoint.id, webhookEndpointOf(endpoint));
      return "created";
    },
    async findEndpoint(id) {
      const endpoint = endpoints.get(id);
      return endpoint ? webhookEndpointOf(endpoint) : null;
    },
    async listEndpoints(organizationId) {
      return [...endpoints.values()]
        .filter((endpoint) => organizationId === undefined || endpoint.organizationId === organizationId)
        .sort(byAge)
        .map(webhookEndpointOf);
    },
    async updateEndpoint(id, patch) {
      const endpoint = endpoints.get(id);
      if (!endpoint) return null;
      const changed: Record<string, unknown> = { ...endpoint };
      // A field given as undefined is one not given (the patch is a Partial).
      for (const field of PATCH_FIELDS) if (patch[field] !== undefined) changed[field] = patch[field];
      const after = webhookEndpointOf(changed as unknown as WebhookEndpoint);
      endpoints.set(id, after);
      return webhookEndpointOf(after);
    },
    async deleteEndpoint(id) {
      leases.delete(id);
      deliveries.delete(id);
      return endpoints.delete(id);
    },
  } satisfies Pick<
    WebhookStore,
    "createEndpoint" | "findEndpoint" | "listEndpoints" | "updateEndpoint" | "deleteEndpoint"
  >;
}

function leaseMethods(state: State) {
  const { endpoints, leases, deliveries } = state;
  /** The endpoint when `owner` holds its lease at `now` (held: its until after now). */
  const leased = (endpointId: string, owner: string, now: number) => {
    const lease = leases.get(endpointId);
    if (!lease || lease.owner !== owner || lease.until <= now) return undefined;
    return endpoints.get(endpointId);
  };
  return {
    async tryLease(endpointId, owner, now, until) {
      if (!endpoints.has(endpointId)) return false;
      const lease = leases.get(endpointId);
      if (lease && lease.owner !== owner && lease.until > now) return false;
      leases.set(endpointId, { owner, until });
      return true;
    },
    async releaseLease(endpointId, owner) {
      if (leases.get(endpointId)?.owner === owner) leases.delete(endpointId);
    },
    async advance(endpointId, lease, from, to, added, disable = null) {
      const endpoint = leased(endpointId, lease.owner, lease.now);
      if (!endpoint || endpoint.cursor !== from) return false;
      if (added.some((delivery) => delivery.endpointId !== endpointId)) return false;
      endpoint.cursor = to;
      for (const delivery of added) keep(state, delivery);
      if (disable !== null) {
        endpoint.enabled = false;
        endpoint.disabledReason = disable;
      }
      return true;
    },
    async recordAttempt(endpointId, lease, deliveryId, attempt, disable) {
      const endpoint = leased(endpointId, lease.owner, lease.now);
      const delivery = deliveries.get(endpointId)?.get(deliveryId);
      if (!endpoint || !delivery) return false;
      Object.assign(delivery, webhookAttemptOf(attempt));
      if (disable !== null) {
        endpoint.enabled = false;
        endpoint.disabledReason = disable;
      }
      return true;
    },
  } satisfies Pick<WebhookStore, "tryLease" | "releaseLease" | "advance" | "recordAttempt">;
}

function deliveryMethods(state: State) {
  const { endpoints, deliveries } = state;
  const deliveriesOf = (endpointId: string) => [...(deliveries.get(endpointId)?.values() ?? [])];
  return {
    async addDelivery(delivery) {
      // The endpoint may have been deleted meanwhile: its deliveries went with it.
      if (endpoints.has(delivery.endpointId)) keep(state, delivery);
    },
    async pendingDeliveries(endpointId) {
      return deliveriesOf(endpointId)
        .filter((delivery) => delivery.status === "pending")
        .sort(byAge)
        .map(webhookDeliveryOf);
    },
    async listDeliveries(endpointId, page) {
      const newest = deliveriesOf(endpointId).sort((a, b) => byAge(b, a));
      const start = page.before === undefined ? 0 : newest.findIndex((one) => one.id === page.before) + 1;
      // An unknown `before` (swept, or another endpoint's) has nothing after it.
      if (start === 0 && page.before !== undefined) return [];
      const limit = Math.max(0, Math.min(page.limit, LIST_LIMIT));
      return newest.slice(start, start + limit).map(webhookDeliveryOf);
    },
    async findDelivery(endpointId, deliveryId) {
      const delivery = deliveries.get(endpointId)?.get(deliveryId);
      return delivery ? webhookDeliveryOf(delivery) : null;
    },
    async sweepDeliveries(olderThan) {
      let removed = 0;
      for (const [endpointId, own] of deliveries) {
        for (const [id, delivery] of own) {
          if (delivery.status === "pending" || delivery.createdAt >= olderThan) continue;
          own.delete(id);
          removed += 1;
        }
        if (own.size === 0) deliveries.delete(endpointId);
      }
      return removed;
    },
  } satisfies Pick<
    WebhookStore,
    "addDelivery" | "pendingDeliveries" | "listDeliveries" | "findDelivery" | "sweepDeliveries"
  >;
}

/**
 * Webhook endpoints, their leases and deliveries in one process's memory. No method awaits
 * between its check and its write, so each one is atomic: of concurrent `tryLease` or `advance`
 * calls, the first to run decides, and `createEndpoint` counts the scope's endpoints and adds the
 * new one in the same step, so concurrent creations never overshoot `maxPerScope`. Leases are judged by the `now` the caller passes, never by a
 * clock of the store's. Deliveries stay until `sweepDeliveries` or the endpoint's deletion removes
 * them. Endpoints and deliveries go in and come out as copies.
 */
export function createMemoryWebhookStore(): WebhookStore {
  const state: State = { endpoints: new Map(), leases: new Map(), deliveries: new Map() };
  return { ...endpointMethods(state), ...leaseMethods(state), ...deliveryMethods(state) };
}
