import type { WebhookEndpoint } from "@portcullis/core";
import { expect } from "vitest";
import { defineStoreSuite, type StoreTests, uniqueId } from "./store-fixture.js";
import {
  ALL,
  LEASE_MS,
  NOW,
  newId,
  ROOMY,
  T0,
  type WebhookContext,
  webhookContext,
} from "./webhook-store-context.js";
import { WEBHOOK_DELIVERY_TESTS, WEBHOOK_SWEEP_TESTS } from "./webhook-store-deliveries.js";
import { WEBHOOK_ADVANCE_TESTS, WEBHOOK_LEASE_TESTS } from "./webhook-store-leases.js";
import { WEBHOOK_LIMIT_TESTS } from "./webhook-store-limits.js";
import { WEBHOOK_ATTEMPT_TESTS, WEBHOOK_COPY_TESTS } from "./webhook-store-records.js";

const ENDPOINT_TESTS: StoreTests<WebhookContext>[string] = {
  "createEndpoint - stores the endpoint; findEndpoint reads it back": async ({ store, endpoint }) => {
    const made = endpoint({ organizationId: uniqueId("org") });
    await store.createEndpoint(structuredClone(made), ROOMY);
    expect(await store.findEndpoint(made.id)).toEqual(made);
  },
  "createEndpoint - every field reads back exactly: nulls, secrets and events in their order, unicode":
    async ({ store, stored }) => {
      const deployment = await stored({
        organizationId: null,
        createdBy: null,
        events: ["*"],
        secrets: [{ sealed: "v1.aGVsbG8=.c2VhbGVk", expiresAt: null }],
        cursor: 0,
      });
      const rotated = await stored({
        organizationId: "org-ça-va",
        url: "https://hooks.example.com/in?tenant=zoë&x=1#frag",
        events: ["member.role_changed", "login.succeeded", "api_key.created"],
        secrets: [
          { sealed: `new-${newId()}`, expiresAt: null },
          { sealed: `old-${newId()}`, expiresAt: T0 + 86_400_000 },
          { sealed: `older-${newId()}`, expiresAt: T0 + 1 },
        ],
        createdBy: "user-Ünïcode",
        cursor: 9_007_199_254_740,
      });
      const disabled = await stored({ enabled: false, disabledReason: "gone", events: [], secrets: [] });
      for (const made of [deployment, rotated, disabled])
        expect(await store.findEndpoint(made.id)).toEqual(made);
    },
  "findEndpoint - null when no endpoint has the id": async ({ store, stored }) => {
    await stored();
    expect(await store.findEndpoint(newId())).toBeNull();
  },
  "listEndpoints - an organization's endpoints only, oldest first": async ({ store, stored }) => {
    const organizationId = uniqueId("org");
    const first = await stored({ organizationId });
    await stored({ organizationId: uniqueId("org") });
    await stored();
    const second = await stored({ organizationId });
    const third = await stored({ organizationId });
    expect(await store.listEndpoints(organizationId)).toEqual([first, second, third]);
    expect(await store.listEndpoints(uniqueId("org"))).toEqual([]);
  },
  "listEndpoints - null: the deployment's own endpoints only, oldest first": async ({ store, stored }) => {
    expect(await store.listEndpoints(null)).toEqual([]);
    const first = await stored();
    await stored({ organizationId: uniqueId("org") });
    const second = await stored();
    expect(await store.listEndpoints(null)).toEqual([first, second]);
  },
  "listEndpoints - undefined: every endpoint of every scope, oldest first": async ({ store, endpoint }) => {
    expect(await store.listEndpoints(undefined)).toEqual([]);
    const organizationId = uniqueId("org");
    const made = [
      endpoint({ organizationId }),
      endpoint(),
      endpoint({ organizationId: uniqueId("org") }),
      endpoint({ organizationId }),
      endpoint(),
    ];
    // Created out of order: the list follows createdAt, not the order of creation.
    for (const index of [3, 0, 4, 2, 1])
      await store.createEndpoint(structuredClone(made[index] as WebhookEndpoint), ROOMY);
    expect(await store.listEndpoints(undefined)).toEqual(made);
    expect(await store.listEndpoints(organizationId)).toEqual([made[0], made[3]]);
    expect(await store.listEndpoints(null)).toEqual([made[1], made[4]]);
  },
  "updateEndpoint - changes the patch's fields only and resolves to the endpoint after it": async ({
    store,
    stored,
  }) => {
    const made = await stored({ organizationId: uniqueId("org") });
    const other = await stored();
    const url = "https://receiver.example.org/hooks/v2";
    const afterUrl = { ...made, url };
    expect(await store.updateEndpoint(made.id, { url })).toEqual(afterUrl);
    expect(await store.findEndpoint(made.id)).toEqual(afterUrl);
    const secrets = [
      { sealed: `new-${newId()}`, expiresAt: null },
      { sealed: made.secrets[0]?.sealed ?? "", expiresAt: NOW + 86_400_000 },
    ];
    const patch = { events: ["*"], secrets, enabled: false, disabledReason: "manual" as const };
    const afterAll = { ...afterUrl, ...patch };
    expect(await store.updateEndpoint(made.id, patch)).toEqual(afterAll);
    expect(await store.findEndpoint(made.id)).toEqual(afterAll);
    expect(await store.findEndpoint(other.id)).toEqual(other);
  },
  "updateEndpoint - enables again with a null reason; an empty patch changes nothing": async ({
    store,
    stored,
  }) => {
    const made = await stored({ enabled: false, disabledReason: "failing" });
    const enabled = { ...made, enabled: true, disabledReason: null };
    expect(await store.updateEndpoint(made.id, { enabled: true, disabledReason: null })).toEqual(enabled);
    expect(await store.updateEndpoint(made.id, {})).toEqual(enabled);
    expect(await store.findEndpoint(made.id)).toEqual(enabled);
  },
  "updateEndpoint - leaves the cursor, the lease and the deliveries as they were": async ({
    store,
    withDelivery,
  }) => {
    const { made, delivery } = await withDelivery();
    const updated = await store.updateEndpoint(made.id, { url: "https://elsewhere.example.com/" });
    expect(updated?.cursor).toBe(delivery.seq);
    expect(await store.listDeliveries(made.id, ALL)).toEqual([delivery]);
    expect(await store.tryLease(made.id, "instance-b", NOW, NOW + LEASE_MS)).toBe(false);
  },
  "updateEndpoint - null when no endpoint has the id, and nothing is made": async ({ store, stored }) => {
    const made = await stored();
    const id = newId();
    expect(await store.updateEndpoint(id, { url: "https://x.example.com/", enabled: false })).toBeNull();
    expect(await store.findEndpoint(id)).toBeNull();
    expect(await store.listEndpoints(undefined)).toEqual([made]);
  },
  "deleteEndpoint - removes the endpoint and resolves true; false when it was not there": async ({
    store,
    stored,
  }) => {
    const made = await stored();
    const kept = await stored();
    expect(await store.deleteEndpoint(made.id)).toBe(true);
    expect(await store.findEndpoint(made.id)).toBeNull();
    expect(await store.listEndpoints(null)).toEqual([kept]);
    expect(await store.listEndpoints(undefined)).toEqual([kept]);
    expect(await store.deleteEndpoint(made.id)).toBe(false);
    expect(await store.deleteEndpoint(newId())).toBe(false);
    expect(await store.updateEndpoint(made.id, { enabled: false })).toBeNull();
  },
  "deleteEndpoint - removes its deliveries and its lease, and no other endpoint's": async ({
    store,
    twoWithDeliveries,
  }) => {
    const { made, other: kept, mine, redelivery, theirs: keptDelivery } = await twoWithDeliveries();
    const gone = [mine, redelivery];
    expect(await store.deleteEndpoint(made.id)).toBe(true);
    expect(await store.tryLease(made.id, "instance-b", NOW, NOW + LEASE_MS)).toBe(false);
    for (const delivery of gone) expect(await store.findDelivery(made.id, delivery.id)).toBeNull();
    expect(await store.listDeliveries(made.id, ALL)).toEqual([]);
    expect(await store.pendingDeliveries(made.id)).toEqual([]);
    expect(await store.listDeliveries(kept.id, ALL)).toEqual([keptDelivery]);
    expect(await store.tryLease(kept.id, "instance-b", NOW, NOW + LEASE_MS)).toBe(false);
    // Made again with the same id (which the core never does), the endpoint starts bare.
    await store.createEndpoint(structuredClone(made), ROOMY);
    expect(await store.listDeliveries(made.id, ALL)).toEqual([]);
    expect(await store.pendingDeliveries(made.id)).toEqual([]);
    expect(await store.tryLease(made.id, "instance-b", NOW, NOW + LEASE_MS)).toBe(true);
  },
};

/**
 * The executable contract of `WebhookStore` (see its TSDoc in @portcullis/core). Each test needs
 * an empty store of its own (a fresh key prefix, schema or table prefix per test for a store on a
 * shared server). The tests pass every instant the store compares (`now`, `until`, `olderThan`),
 * all of them fixed, far from the test's own time: a store judges a lease by the `now` it is
 * given, never by a clock of its own.
 */
export const runWebhookStoreSuite = defineStoreSuite("WebhookStore", webhookContext, {
  endpoints: ENDPOINT_TESTS,
  limits: WEBHOOK_LIMIT_TESTS,
  tryLease: WEBHOOK_LEASE_TESTS,
  advance: WEBHOOK_ADVANCE_TESTS,
  recordAttempt: WEBHOOK_ATTEMPT_TESTS,
  deliveries: WEBHOOK_DELIVERY_TESTS,
  sweepDeliveries: WEBHOOK_SWEEP_TESTS,
  copies: WEBHOOK_COPY_TESTS,
});
