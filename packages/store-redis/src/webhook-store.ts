import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookStore,
} from "@portcullis/core";
import { webhookAttemptOf, webhookDeliveryOf, webhookEndpointOf } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { withCommands } from "./scripts.js";
import { WEBHOOK_COMMANDS, type WebhookCommands } from "./webhook-scripts.js";

/** How many deliveries one `sweepDeliveries` script removes at most. */
const SWEEP_BATCH = 500;
/** The most deliveries `listDeliveries` returns. */
const LIST_LIMIT = 1_000;

/** Field and value pairs of a hash, each value JSON (so null, numbers and lists read back as they were). */
const fieldsOf = (record: object): string[] =>
  Object.entries(record).flatMap(([field, value]) =>
    value === undefined ? [] : [field, JSON.stringify(value)],
  );

/** A flat HGETALL reply (field, value, …) as a map of the parsed values. */
function parsedFields(flat: string[]): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  for (let i = 0; i + 1 < flat.length; i += 2)
    fields.set(flat[i] as string, JSON.parse(flat[i + 1] as string));
  return fields;
}

/** The endpoint a hash holds (its fields, and no others), or null when the hash is empty. */
function endpointOf(flat: string[]): WebhookEndpoint | null {
  const fields = parsedFields(flat);
  if (!fields.has("id")) return null;
  const field = <T>(name: keyof WebhookEndpoint) => (fields.get(name) ?? null) as T;
  return {
    id: field("id"),
    organizationId: field("organizationId"),
    url: field("url"),
    events: field("events"),
    enabled: field("enabled"),
    disabledReason: field("disabledReason"),
    secrets: field("secrets"),
    createdBy: field("createdBy"),
    createdAt: field("createdAt"),
    cursor: field("cursor"),
  };
}

/** The delivery a hash holds (its fields, and no others), or null when the hash is empty. */
function deliveryOf(flat: string[]): WebhookDelivery | null {
  const fields = parsedFields(flat);
  if (!fields.has("id")) return null;
  const field = <T>(name: keyof WebhookDelivery) => (fields.get(name) ?? null) as T;
  return {
    id: field("id"),
    endpointId: field("endpointId"),
    entryId: field("entryId"),
    seq: field("seq"),
    type: field("type"),
    status: field("status"),
    attempts: field("attempts"),
    createdAt: field("createdAt"),
    lastAttemptAt: field("lastAttemptAt"),
    lastStatusCode: field("lastStatusCode"),
    lastError: field("lastError"),
    nextAttemptAt: field("nextAttemptAt"),
    redelivery: field("redelivery") === true,
  };
}

/** A sorted-set bound for `olderThan` (exclusive), whatever number it is. */
const exclusiveBound = (olderThan: number) =>
  Number.isFinite(olderThan) ? String(olderThan) : olderThan > 0 ? "+inf" : "-inf";

/** The client, its bounds and the keys of the webhook store (every one under the `{webhooks}` hash tag). */
interface WebhookSpace {
  client: Redis | Cluster;
  redis: WebhookCommands;
  bounded: <T>(operation: Promise<T>) => Promise<T>;
  /** The deadline (on Redis's clock) of a write starting now, as the scripts take it. */
  by: () => Promise<string>;
  endpoint: (id: string) => string;
  endpointPrefix: string;
  lease: (id: string) => string;
  /** Every endpoint, by createdAt then id. */
  allEndpoints: string;
  /** The deployment's endpoints, and the prefix of each organization's. */
  deploymentEndpoints: string;
  organizationPrefix: string;
  delivery: (id: string) => string;
  deliveryPrefix: string;
  /** An endpoint's deliveries (by createdAt then id), and the prefix of those sets. */
  deliveries: (endpointId: string) => string;
  deliveriesPrefix: string;
  /** An endpoint's pending deliveries (by createdAt then id). */
  pending: (endpointId: string) => string;
  /** Every delivery no longer pending, by createdAt (for `sweepDeliveries`). */
  finished: string;
}

function webhookSpace(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
  deadline: () => Promise<number>,
): WebhookSpace {
  const tag = `${prefix}{webhooks}:`;
  return {
    client,
    redis: client as unknown as WebhookCommands,
    bounded,
    by: async () => String(await deadline()),
    endpoint: (id) => `${tag}e:${id}`,
    endpointPrefix: `${tag}e:`,
    lease: (id) => `${tag}l:${id}`,
    allEndpoints: `${tag}endpoints`,
    deploymentEndpoints: `${tag}scope:-`,
    organizationPrefix: `${tag}scope:o:`,
    delivery: (id) => `${tag}d:${id}`,
    deliveryPrefix: `${tag}d:`,
    deliveries: (endpointId) => `${tag}dl:${endpointId}`,
    deliveriesPrefix: `${tag}dl:`,
    pending: (endpointId) => `${tag}dp:${endpointId}`,
    finished: `${tag}finished`,
  };
}

/** Rejects when a guarded write's script ran after its deadline (it wrote nothing). */
function refuseLate(result: unknown, what: string): void {
  if (result === -1) throw new Error(`Redis ran the webhook ${what} past its deadline: nothing was written`);
}

/** The scope set an endpoint of `organizationId` is listed in. */
const scopeOf = (space: WebhookSpace, organizationId: string | null) =>
  organizationId === null ? space.deploymentEndpoints : `${space.organizationPrefix}${organizationId}`;

/** The hashes a sorted set indexes, read in one script (a consistent view). */
const readIndexed = (
  space: WebhookSpace,
  set: string,
  hashPrefix: string,
  order: "asc" | "desc",
  after = "",
  count = -1,
) => space.bounded(space.redis.portcullisReadWebhookIndex(set, hashPrefix, order, after, String(count)));

async function createEndpoint(
  space: WebhookSpace,
  endpoint: WebhookEndpoint,
  maxPerScope: number,
): Promise<"created" | "limit-reached"> {
  const created = await space.bounded(
    space.redis.portcullisCreateWebhookEndpoint(
      space.endpoint(endpoint.id),
      space.allEndpoints,
      scopeOf(space, endpoint.organizationId),
      await space.by(),
      endpoint.id,
      String(endpoint.createdAt),
      String(maxPerScope),
      ...fieldsOf(webhookEndpointOf(endpoint)),
    ),
  );
  refuseLate(created, "endpoint creation");
  if (created === 2) return "limit-reached";
  if (created !== 1)
    throw new Error(`A webhook endpoint with id ${endpoint.id} already exists: nothing was written`);
  return "created";
}

async function updateEndpoint(
  space: WebhookSpace,
  id: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpoint | null> {
  const changes: WebhookEndpointPatch = {
    url: patch.url,
    events: patch.events,
    enabled: patch.enabled,
    disabledReason: patch.disabledReason,
    secrets: patch.secrets?.map(({ sealed, expiresAt }) => ({ sealed, expiresAt })),
  };
  const after = await space.bounded(
    space.redis.portcullisUpdateWebhookEndpoint(space.endpoint(id), await space.by(), ...fieldsOf(changes)),
  );
  refuseLate(after, "endpoint update");
  return Array.isArray(after) ? endpointOf(after) : null;
}

async function deleteEndpoint(space: WebhookSpace, id: string): Promise<boolean> {
  const deleted = await space.bounded(
    space.redis.portcullisDeleteWebhookEndpoint(
      space.endpoint(id),
      space.lease(id),
      space.allEndpoints,
      space.deliveries(id),
      space.pending(id),
      space.finished,
      await space.by(),
      id,
      space.deliveryPrefix,
      space.deploymentEndpoints,
      space.organizationPrefix,
    ),
  );
  refuseLate(deleted, "endpoint removal");
  return deleted === 1;
}

async function tryLease(
  space: WebhookSpace,
  endpointId: string,
  owner: string,
  now: number,
  until: number,
): Promise<boolean> {
  const taken = await space.bounded(
    space.redis.portcullisTryWebhookLease(
      space.endpoint(endpointId),
      space.lease(endpointId),
      await space.by(),
      owner,
      String(now),
      String(until),
    ),
  );
  refuseLate(taken, "lease");
  return taken === 1;
}

async function advance(
  space: WebhookSpace,
  endpointId: string,
  lease: { owner: string; now: number },
  from: number,
  to: number,
  deliveries: readonly WebhookDelivery[],
  disable: WebhookDisabledReason | null,
): Promise<boolean> {
  // A delivery of another endpoint cannot be among this endpoint's: nothing is written.
  if (deliveries.some((delivery) => delivery.endpointId !== endpointId)) return false;
  const written = await space.bounded(
    space.redis.portcullisAdvanceWebhook(
      space.endpoint(endpointId),
      space.lease(endpointId),
      space.deliveries(endpointId),
      space.pending(endpointId),
      space.finished,
      await space.by(),
      lease.owner,
      String(lease.now),
      String(from),
      JSON.stringify(to),
      disable === null ? "" : JSON.stringify(disable),
      space.deliveryPrefix,
      String(deliveries.length),
      ...deliveries.flatMap((delivery) => {
        const fields = fieldsOf(webhookDeliveryOf(delivery));
        const pending = delivery.status === "pending" ? "1" : "0";
        return [delivery.id, String(delivery.createdAt), pending, String(fields.length), ...fields];
      }),
    ),
  );
  refuseLate(written, "advance");
  return written === 1;
}

async function recordAttempt(
  space: WebhookSpace,
  endpointId: string,
  lease: { owner: string; now: number },
  deliveryId: string,
  attempt: WebhookAttempt,
  disable: string | null,
): Promise<boolean> {
  const written = await space.bounded(
    space.redis.portcullisRecordWebhookAttempt(
      space.endpoint(endpointId),
      space.lease(endpointId),
      space.delivery(deliveryId),
      space.pending(endpointId),
      space.finished,
      await space.by(),
      lease.owner,
      String(lease.now),
      JSON.stringify(endpointId),
      deliveryId,
      attempt.status === "pending" ? "1" : "0",
      disable === null ? "" : JSON.stringify(disable),
      ...fieldsOf(webhookAttemptOf(attempt)),
    ),
  );
  refuseLate(written, "attempt");
  return written === 1;
}

async function addDelivery(space: WebhookSpace, delivery: WebhookDelivery): Promise<void> {
  const written = await space.bounded(
    space.redis.portcullisAddWebhookDelivery(
      space.endpoint(delivery.endpointId),
      space.delivery(delivery.id),
      space.deliveries(delivery.endpointId),
      space.pending(delivery.endpointId),
      space.finished,
      await space.by(),
      delivery.id,
      String(delivery.createdAt),
      delivery.status === "pending" ? "1" : "0",
      ...fieldsOf(webhookDeliveryOf(delivery)),
    ),
  );
  refuseLate(written, "delivery");
}

async function listDeliveries(
  space: WebhookSpace,
  endpointId: string,
  page: { limit: number; before?: string | undefined },
): Promise<WebhookDelivery[]> {
  const limit = Math.min(LIST_LIMIT, Math.floor(page.limit));
  if (!(limit >= 1)) return [];
  const hashes = await readIndexed(
    space,
    space.deliveries(endpointId),
    space.deliveryPrefix,
    "desc",
    page.before ?? "",
    limit,
  );
  return hashes.flatMap((flat) => deliveryOf(flat) ?? []);
}

/** `sweepDeliveries`: SWEEP_BATCH deliveries a script until a script reads fewer. */
async function sweepDeliveries(space: WebhookSpace, olderThan: number): Promise<number> {
  if (Number.isNaN(olderThan)) return 0;
  let removed = 0;
  for (;;) {
    const [count, read] = await space.bounded(
      space.redis.portcullisSweepWebhookDeliveries(
        space.finished,
        exclusiveBound(olderThan),
        String(SWEEP_BATCH),
        space.deliveryPrefix,
        space.deliveriesPrefix,
      ),
    );
    removed += count;
    if (read < SWEEP_BATCH) return removed;
  }
}

/**
 * Webhook endpoints and deliveries on Redis, every key under one hash tag (`{webhooks}`, one
 * cluster slot, so one script reaches the endpoint, its lease and its deliveries): a hash per
 * endpoint and per delivery (one field per property, each value JSON), sorted sets of endpoints
 * (every one, the deployment's, each organization's) and of each endpoint's deliveries and
 * pending deliveries (by createdAt, then id), one of every finished delivery by createdAt (what
 * `sweepDeliveries` removes, 500 a script: never a scan of the keyspace), and a hash per lease
 * (owner, until). Every write is one Lua script: `createEndpoint` counts the scope's set and
 * adds the endpoint in the same script (concurrent creations never overshoot `maxPerScope`),
 * `advance` and `recordAttempt` check the lease
 * (its owner, and `until` past the caller's `now`) and their preconditions before the first
 * write, and `tryLease` takes the lease only when it is free, expired or the caller's, so of
 * concurrent callers at most one gets it. Each write carries a deadline (Redis's clock): run
 * after the caller gave up, it writes nothing.
 */
export function redisWebhookStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
  deadline: () => Promise<number>,
): WebhookStore {
  withCommands(client, WEBHOOK_COMMANDS);
  const space = webhookSpace(client, bounded, prefix, deadline);
  return {
    createEndpoint: (endpoint, { maxPerScope }) => createEndpoint(space, endpoint, maxPerScope),
    async findEndpoint(id) {
      const fields = await bounded(client.hgetall(space.endpoint(id)));
      return endpointOf(Object.entries(fields).flat());
    },
    async listEndpoints(organizationId) {
      const set = organizationId === undefined ? space.allEndpoints : scopeOf(space, organizationId);
      const hashes = await readIndexed(space, set, space.endpointPrefix, "asc");
      return hashes.flatMap((flat) => endpointOf(flat) ?? []);
    },
    updateEndpoint: (id, patch) => updateEndpoint(space, id, patch),
    deleteEndpoint: (id) => deleteEndpoint(space, id),
    tryLease: (endpointId, owner, now, until) => tryLease(space, endpointId, owner, now, until),
    async releaseLease(endpointId, owner) {
      await bounded(space.redis.portcullisReleaseWebhookLease(space.lease(endpointId), owner));
    },
    advance: (endpointId, lease, from, to, deliveries, disable = null) =>
      advance(space, endpointId, lease, from, to, deliveries, disable),
    recordAttempt: (endpointId, lease, deliveryId, attempt, disable) =>
      recordAttempt(space, endpointId, lease, deliveryId, attempt, disable),
    addDelivery: (delivery) => addDelivery(space, delivery),
    async pendingDeliveries(endpointId) {
      const hashes = await readIndexed(space, space.pending(endpointId), space.deliveryPrefix, "asc");
      return hashes.flatMap((flat) => deliveryOf(flat) ?? []);
    },
    listDeliveries: (endpointId, page) => listDeliveries(space, endpointId, page),
    async findDelivery(endpointId, deliveryId) {
      const fields = await bounded(client.hgetall(space.delivery(deliveryId)));
      const delivery = deliveryOf(Object.entries(fields).flat());
      return delivery?.endpointId === endpointId ? delivery : null;
    },
    sweepDeliveries: (olderThan) => sweepDeliveries(space, olderThan),
  };
}
