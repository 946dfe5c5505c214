// The store of one WebhookStore conformance test, and the endpoints, deliveries and leases its
// tests share (webhook-store-suite.ts, webhook-store-leases.ts, webhook-store-deliveries.ts).
import { randomBytes } from "node:crypto";
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookStore } from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, storeContext } from "./store-fixture.js";

/** The time the endpoints and deliveries of a test are made from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** The `now` of the leases' calls: the tests pass every instant, so no clock is moved or waited for. */
export const NOW = T0 + 3_600_000;

/** How long a lease of the tests lasts. */
export const LEASE_MS = 30_000;

/** The most deliveries a test reads at once. */
export const ALL = { limit: 1_000 } as const;

/** The limit of the creations that are not about it: room enough for every endpoint a test makes. */
export const ROOMY = { maxPerScope: 1_000 } as const;

/** A new id as the core mints them: 32 lowercase hex characters. */
export const newId = () => randomBytes(16).toString("hex");

/** An attempt that succeeded at `NOW`, with `overrides`. */
export const attemptOf = (overrides: Partial<WebhookAttempt> = {}): WebhookAttempt => ({
  status: "succeeded",
  attempts: 1,
  lastAttemptAt: NOW,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  ...overrides,
});

/** `deliveries` by `createdAt`, then id: oldest first (`pendingDeliveries`' order). */
export const oldestFirst = (deliveries: WebhookDelivery[]) =>
  [...deliveries].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** `deliveries` by `createdAt`, then id, descending: newest first (`listDeliveries`' order). */
export const newestFirst = (deliveries: WebhookDelivery[]) => oldestFirst(deliveries).reverse();

/** Makers of one test: each endpoint and delivery is made 1 s after the one before. */
function makers() {
  let ticks = 0;
  let seq = 100;
  const endpoint = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
    id: newId(),
    organizationId: null,
    url: "https://hooks.example.com/portcullis",
    events: ["login.succeeded", "member.role_changed"],
    enabled: true,
    disabledReason: null,
    secrets: [{ sealed: `sealed-${newId()}`, expiresAt: null }],
    createdBy: "user-ada",
    createdAt: T0 + ++ticks * 1_000,
    cursor: 41,
    ...overrides,
  });
  const delivery = (endpointId: string, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => {
    const createdAt = T0 + ++ticks * 1_000;
    return {
      id: newId(),
      endpointId,
      entryId: newId(),
      seq: ++seq,
      type: "login.succeeded",
      status: "pending",
      attempts: 0,
      createdAt,
      lastAttemptAt: null,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: createdAt,
      redelivery: false,
      ...overrides,
    };
  };
  return { endpoint, delivery };
}

/** What the store holds of one endpoint: the endpoint and all its deliveries (newest first). */
export async function snapshotOf(store: WebhookStore, endpointId: string) {
  return {
    endpoint: await store.findEndpoint(endpointId),
    deliveries: await store.listDeliveries(endpointId, ALL),
    pending: await store.pendingDeliveries(endpointId),
  };
}

/**
 * The store of one test (empty), makers of endpoints and deliveries, and shortcuts: `stored`
 * creates an endpoint; `lease` takes its lease for `owner` from `NOW` for `LEASE_MS` and returns
 * the lease argument of `advance` and `recordAttempt` at `NOW`; `leased` does both for a new
 * endpoint; `advanced` adds a delivery in the endpoint's order (under a lease, from its cursor)
 * and `added` one beside it (a redelivery).
 */
export function webhookContext(fixture: StoreFixture<WebhookStore>) {
  const { endpoint, delivery } = makers();
  const store = fixture.store;
  const stored = async (overrides: Partial<WebhookEndpoint> = {}) => {
    const made = endpoint(overrides);
    expect(await store.createEndpoint(structuredClone(made), ROOMY)).toBe("created");
    return made;
  };
  const lease = async (endpointId: string, owner = "instance-a") => {
    expect(await store.tryLease(endpointId, owner, NOW, NOW + LEASE_MS)).toBe(true);
    return { owner, now: NOW };
  };
  /** A new endpoint with `overrides`, stored, whose lease `owner` takes: the endpoint and the lease argument. */
  const leased = async (overrides: Partial<WebhookEndpoint> = {}, owner = "instance-a") => {
    const made = await stored(overrides);
    return { made, held: await lease(made.id, owner) };
  };
  const advanced = async (endpointId: string, overrides: Partial<WebhookDelivery> = {}) => {
    const held = await lease(endpointId);
    const from = (await store.findEndpoint(endpointId))?.cursor ?? 0;
    const made = delivery(endpointId, overrides);
    expect(await store.advance(endpointId, held, from, made.seq, [structuredClone(made)])).toBe(true);
    return made;
  };
  const added = async (endpointId: string, overrides: Partial<WebhookDelivery> = {}) => {
    const made = delivery(endpointId, { redelivery: true, ...overrides });
    await store.addDelivery(structuredClone(made));
    return made;
  };
  /** A new endpoint, stored, with a delivery (with `overrides`) in its order: the endpoint and the delivery. */
  const withDelivery = async (overrides: Partial<WebhookDelivery> = {}) => {
    const made = await stored();
    return { made, delivery: await advanced(made.id, overrides) };
  };
  /** Two new endpoints: `made` with a delivery in its order (`mine`) and a `redelivery`; `other` with `theirs`. */
  const twoWithDeliveries = async () => {
    const made = await stored();
    const other = await stored();
    const mine = await advanced(made.id);
    const redelivery = await added(made.id);
    const theirs = await advanced(other.id);
    return { made, other, mine, redelivery, theirs };
  };
  return {
    ...storeContext(fixture),
    endpoint,
    delivery,
    stored,
    lease,
    leased,
    advanced,
    added,
    withDelivery,
    twoWithDeliveries,
  };
}

export type WebhookContext = ReturnType<typeof webhookContext>;
