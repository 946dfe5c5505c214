// The WebhookStore conformance tests of recordAttempt, and of the copies a store hands out and keeps.
import type { WebhookDelivery, WebhookEndpoint } from "@portcullis/core";
import { expect } from "vitest";
import { type StoreTests, uniqueId } from "./store-fixture.js";
import {
  ALL,
  attemptOf,
  LEASE_MS,
  NOW,
  newId,
  ROOMY,
  snapshotOf,
  type WebhookContext,
} from "./webhook-store-context.js";

const UNTIL = NOW + LEASE_MS;

export const WEBHOOK_ATTEMPT_TESTS: StoreTests<WebhookContext>[string] = {
  "recordAttempt - writes the attempt's fields on the delivery under the lease, and nothing else": async ({
    store,
    withDelivery,
    advanced,
  }) => {
    const { made, delivery: first } = await withDelivery();
    const second = await advanced(made.id);
    const lease = { owner: "instance-a", now: NOW + 5 };
    const failed = attemptOf({
      status: "pending",
      attempts: 1,
      lastStatusCode: 503,
      lastError: "HTTP 503 « Service Unavailable »",
      nextAttemptAt: NOW + 5_000,
    });
    expect(await store.recordAttempt(made.id, lease, first.id, failed, null)).toBe(true);
    const retried = { ...first, ...failed };
    expect(await store.findDelivery(made.id, first.id)).toEqual(retried);
    expect(await store.pendingDeliveries(made.id)).toEqual([retried, second]);
    const timedOut = attemptOf({
      status: "pending",
      attempts: 2,
      lastStatusCode: null,
      lastError: "timed out",
    });
    expect(await store.recordAttempt(made.id, lease, first.id, timedOut, null)).toBe(true);
    const succeeded = attemptOf({ attempts: 3, lastAttemptAt: NOW + 9_000 });
    expect(await store.recordAttempt(made.id, lease, first.id, succeeded, null)).toBe(true);
    expect(await store.findDelivery(made.id, first.id)).toEqual({ ...first, ...succeeded });
    expect(await store.pendingDeliveries(made.id)).toEqual([second]);
    expect(await store.findDelivery(made.id, second.id)).toEqual(second);
    expect(await store.findEndpoint(made.id)).toEqual({ ...made, cursor: second.seq });
  },
  "recordAttempt - with `disable`, disables the endpoint with that reason in the same write": async ({
    store,
    withDelivery,
    added,
  }) => {
    for (const reason of ["gone", "failing", "manual"] as const) {
      const { made, delivery } = await withDelivery();
      const redelivery = await added(made.id);
      const lease = { owner: "instance-a", now: NOW };
      const failed = attemptOf({ status: "failed", lastStatusCode: 410, lastError: "HTTP 410" });
      expect(await store.recordAttempt(made.id, lease, delivery.id, failed, reason)).toBe(true);
      expect(await store.findDelivery(made.id, delivery.id)).toEqual({ ...delivery, ...failed });
      const disabled = { ...made, cursor: delivery.seq, enabled: false, disabledReason: reason };
      expect(await store.findEndpoint(made.id)).toEqual(disabled);
      expect(await store.pendingDeliveries(made.id)).toEqual([redelivery]);
    }
  },
  "recordAttempt - on a redelivery (added beside the order) too": async ({ store, stored, lease, added }) => {
    const made = await stored();
    const redelivery = await added(made.id);
    const held = await lease(made.id);
    const attempt = attemptOf({ attempts: 4 });
    expect(await store.recordAttempt(made.id, held, redelivery.id, attempt, null)).toBe(true);
    expect(await store.findDelivery(made.id, redelivery.id)).toEqual({ ...redelivery, ...attempt });
  },
  "recordAttempt - false and nothing written without the lease: none, another owner's, expired, released":
    async ({ store, stored, advanced, added }) => {
      const bare = await stored();
      const bareDelivery = await added(bare.id);
      const beforeBare = await snapshotOf(store, bare.id);
      const made = await stored();
      const delivery = await advanced(made.id); // instance-a holds the lease until UNTIL
      const other = await stored();
      const otherDelivery = await advanced(other.id);
      await store.releaseLease(other.id, "instance-a");
      const before = await snapshotOf(store, made.id);
      const beforeOther = await snapshotOf(store, other.id);
      const attempt = (endpointId: string, deliveryId: string, owner: string, now: number) =>
        store.recordAttempt(
          endpointId,
          { owner, now },
          deliveryId,
          attemptOf({ status: "failed" }),
          "failing",
        );
      expect(await attempt(bare.id, bareDelivery.id, "instance-a", NOW)).toBe(false);
      expect(await attempt(made.id, delivery.id, "instance-b", NOW)).toBe(false);
      expect(await attempt(made.id, delivery.id, "instance-a", UNTIL)).toBe(false);
      expect(await attempt(made.id, delivery.id, "instance-a", UNTIL + 60_000)).toBe(false);
      expect(await attempt(other.id, otherDelivery.id, "instance-a", NOW)).toBe(false);
      expect(await store.tryLease(made.id, "instance-b", UNTIL, UNTIL + LEASE_MS)).toBe(true);
      expect(await attempt(made.id, delivery.id, "instance-a", UNTIL - 1)).toBe(false);
      expect(await snapshotOf(store, made.id)).toEqual(before);
      expect(await snapshotOf(store, other.id)).toEqual(beforeOther);
      expect(await snapshotOf(store, bare.id)).toEqual(beforeBare);
    },
  "recordAttempt - false and nothing written for another endpoint's delivery or an unknown one": async ({
    store,
    stored,
    advanced,
    lease,
  }) => {
    const made = await stored();
    const other = await stored();
    const otherDelivery = await advanced(other.id);
    const held = await lease(made.id);
    const before = await snapshotOf(store, made.id);
    const beforeOther = await snapshotOf(store, other.id);
    const failed = attemptOf({ status: "failed" });
    expect(await store.recordAttempt(made.id, held, otherDelivery.id, failed, "gone")).toBe(false);
    expect(await store.recordAttempt(made.id, held, newId(), failed, "gone")).toBe(false);
    expect(await snapshotOf(store, made.id)).toEqual(before);
    expect(await snapshotOf(store, other.id)).toEqual(beforeOther);
  },
  "recordAttempt - false for an endpoint that does not exist": async ({ store, delivery }) => {
    const id = newId();
    const given = delivery(id);
    const lease = { owner: "instance-a", now: NOW };
    expect(await store.recordAttempt(id, lease, given.id, attemptOf(), "gone")).toBe(false);
    expect(await store.findEndpoint(id)).toBeNull();
    expect(await store.findDelivery(id, given.id)).toBeNull();
  },
};

/** Changes every field of `endpoint` in place, nested arrays and objects included. */
const scribbleEndpoint = (endpoint: WebhookEndpoint) => {
  endpoint.url = "https://changed.example.com/";
  endpoint.events.push("changed");
  (endpoint.secrets[0] as WebhookEndpoint["secrets"][number]).sealed = "changed";
  endpoint.secrets.push({ sealed: "pushed", expiresAt: 1 });
  endpoint.cursor = -1;
  endpoint.enabled = !endpoint.enabled;
};

/** Changes the fields of `delivery` in place. */
const scribbleDelivery = (delivery: WebhookDelivery) => {
  delivery.status = "failed";
  delivery.attempts = 99;
  delivery.lastError = "changed";
  delivery.createdAt = 0;
};

export const WEBHOOK_COPY_TESTS: StoreTests<WebhookContext>[string] = {
  "endpoints go in and come out as copies: changing one changes nothing stored": async ({
    store,
    endpoint,
  }) => {
    const organizationId = uniqueId("org");
    const given = endpoint({ organizationId });
    const expected = structuredClone(given);
    expect(await store.createEndpoint(given, ROOMY)).toBe("created");
    scribbleEndpoint(given);
    scribbleEndpoint((await store.findEndpoint(expected.id)) as WebhookEndpoint);
    for (const listed of await store.listEndpoints(organizationId)) scribbleEndpoint(listed);
    for (const listed of await store.listEndpoints(undefined)) scribbleEndpoint(listed);
    expect(await store.findEndpoint(expected.id)).toEqual(expected);
    const patch = { events: ["*"], secrets: [{ sealed: "patched", expiresAt: null }] };
    const updated = { ...expected, ...structuredClone(patch) };
    scribbleEndpoint((await store.updateEndpoint(expected.id, patch)) as WebhookEndpoint);
    patch.events.push("changed");
    (patch.secrets[0] as WebhookEndpoint["secrets"][number]).sealed = "changed";
    expect(await store.findEndpoint(expected.id)).toEqual(updated);
  },
  "deliveries go in and come out as copies: changing one changes nothing stored": async ({
    store,
    stored,
    lease,
    delivery,
  }) => {
    const made = await stored();
    const held = await lease(made.id);
    const ordered = delivery(made.id, { seq: made.cursor + 1 });
    const redelivery = delivery(made.id, { redelivery: true });
    const expected = [structuredClone(ordered), structuredClone(redelivery)];
    expect(await store.advance(made.id, held, made.cursor, ordered.seq, [ordered])).toBe(true);
    await store.addDelivery(redelivery);
    scribbleDelivery(ordered);
    scribbleDelivery(redelivery);
    for (const one of expected)
      scribbleDelivery((await store.findDelivery(made.id, one.id)) as WebhookDelivery);
    for (const one of await store.pendingDeliveries(made.id)) scribbleDelivery(one);
    for (const one of await store.listDeliveries(made.id, ALL)) scribbleDelivery(one);
    expect(await store.pendingDeliveries(made.id)).toEqual(expected);
    const attempt = attemptOf();
    expect(await store.recordAttempt(made.id, held, ordered.id, attempt, null)).toBe(true);
    attempt.attempts = 42;
    expect(await store.findDelivery(made.id, ordered.id)).toEqual({ ...expected[0], ...attemptOf() });
  },
};
