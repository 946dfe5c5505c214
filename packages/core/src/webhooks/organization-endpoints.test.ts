import { startWebhookReceiver, type WebhookReceiver } from "@portcullis/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { Call } from "../model.js";
import type { WebhookDelivery } from "../ports/webhook-store.js";
import { createLineLogger, createWebhooksTestAuth } from "../test-support.js";

// An organization's webhook endpoints go with it: deleted by its owner, or with its only
// member's account; and the engine never sends to an endpoint whose organization is gone.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Organizations, the back office (`admin@…`) and webhooks on (delivering only on `deliverNow`), at the real time. */
function setup() {
  const { logger, lines } = createLineLogger();
  const env = createWebhooksTestAuth({ allowPrivateNetworks: true }, { logger });
  cleanups.push(() => env.auth.webhooks.stop());
  const organization = async (owner: Call, name = "Acme") =>
    (await env.auth.organizations.create(owner, { name })).organization.id;
  /** A receiver (stopped after the test) and an endpoint of `organizationId` (undefined: the deployment's) sending to it. */
  const hooked = async (caller: Call, organizationId?: string) => {
    const hook: WebhookReceiver = await startWebhookReceiver();
    cleanups.push(() => hook.stop());
    const { endpoint, secret } = await env.auth.webhooks.create(caller, {
      organizationId,
      url: hook.url,
      events: ["*"],
    });
    hook.secrets = [secret];
    return { hook, endpointId: endpoint.id };
  };
  return { ...env, lines, organization, hooked };
}

/** A finished redelivery of `endpointId`, as the store keeps them. */
const finished = (endpointId: string, n: number): WebhookDelivery => ({
  id: `${n}`.padStart(32, "d"),
  endpointId,
  entryId: `${n}`.padStart(32, "e"),
  seq: n,
  type: "organization.updated",
  status: "succeeded",
  attempts: 1,
  createdAt: n,
  lastAttemptAt: n,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  redelivery: true,
});

describe("webhooks of a deleted organization", () => {
  it("organizations.delete - deletes the organization's endpoints and their deliveries; other scopes keep theirs", async () => {
    const { auth, stores, user, organization, hooked } = setup();
    const owner = await user("owner@example.test");
    const admin = await user("admin@example.test");
    const doomed = await organization(owner);
    const kept = await organization(owner, "Kept");
    const gone = [await hooked(owner, doomed), await hooked(owner, doomed)];
    const other = await hooked(owner, kept);
    const deployment = await hooked(admin);
    await stores.webhooks.addDelivery(finished(gone[0]?.endpointId ?? "", 1));
    await auth.organizations.delete(owner, doomed);
    expect(await stores.webhooks.listEndpoints(doomed)).toEqual([]);
    for (const { endpointId } of gone) expect(await stores.webhooks.findEndpoint(endpointId)).toBeNull();
    expect(await stores.webhooks.findDelivery(gone[0]?.endpointId ?? "", finished("", 1).id)).toBeNull();
    expect((await stores.webhooks.listEndpoints(kept)).map((endpoint) => endpoint.id)).toEqual([
      other.endpointId,
    ]);
    expect((await stores.webhooks.listEndpoints(null)).map((endpoint) => endpoint.id)).toEqual([
      deployment.endpointId,
    ]);
    // Nothing more reaches the deleted organization's receivers; the deployment hears of the deletion.
    await auth.webhooks.deliverNow();
    for (const { hook } of gone) expect(hook.attempts).toEqual([]);
    expect(deployment.hook.received.map((message) => message.type)).toContain("organization.deleted");
  });

  it("host.deleteUser - the organizations that go with their only member take their endpoints", async () => {
    const { auth, stores, user, organization, hooked } = setup();
    const solo = await user("solo@example.test");
    const owner = await user("owner@example.test");
    const alone = await organization(solo);
    const others = await organization(owner, "Others");
    const mine = await hooked(solo, alone);
    const theirs = await hooked(owner, others);
    await auth.host.deleteUser({}, solo.principal?.userId ?? "");
    expect(await auth.organizations.get(owner, others)).toBeTruthy();
    expect(await stores.webhooks.listEndpoints(alone)).toEqual([]);
    expect(await stores.webhooks.findEndpoint(mine.endpointId)).toBeNull();
    expect((await stores.webhooks.listEndpoints(others)).map((endpoint) => endpoint.id)).toEqual([
      theirs.endpointId,
    ]);
  });

  it("deliverNow - an endpoint that outlived its organization is deleted before a send: nothing reaches it", async () => {
    const { auth, stores, lines, user, organization, hooked } = setup();
    const owner = await user("owner@example.test");
    const orphaned = await organization(owner);
    const alive = await organization(owner, "Alive");
    const orphan = await hooked(owner, orphaned);
    const control = await hooked(owner, alive);
    await auth.webhooks.deliverNow();
    expect(orphan.hook.received.map((message) => message.type)).toEqual(["webhook.created"]);
    // Something happens in each organization, then the first one goes behind the webhooks'
    // back (as when an endpoint is made while its organization is being deleted).
    await auth.organizations.update(owner, { organizationId: orphaned, body: { name: "Renamed" } });
    await auth.organizations.update(owner, { organizationId: alive, body: { name: "Renamed too" } });
    expect(await stores.organizations.deleteOrganization(orphaned)).toBe(true);
    await auth.webhooks.deliverNow();
    expect(orphan.hook.attempts).toHaveLength(1);
    expect(await stores.webhooks.findEndpoint(orphan.endpointId)).toBeNull();
    const gone = lines.filter((line) => line.includes('"webhook.organization_gone"'));
    expect(gone.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: "warn", endpointId: orphan.endpointId, organizationId: orphaned }),
    ]);
    expect(control.hook.received.map((message) => message.type)).toEqual([
      "webhook.created",
      "organization.updated",
    ]);
  });
});
