import { createMemoryStores } from "@portcullis/store-memory";
import { startWebhookReceiver, type WebhookReceiver } from "@portcullis/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/auth.js";
import { createAuth } from "../create-auth/create-auth.js";
import type { ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import type { WebhooksOptions } from "../options/webhook-options.js";
import { silentLogger } from "../ports/logger.js";
import { code, createTestAuth, createWebhooksTestAuth, TEST_SECRET } from "../test-support.js";
import { rotatedSecrets, WEBHOOK_SECRET_OVERLAP_MS } from "./manage.js";

/** A public address that needs no DNS (nothing is sent to it: `deliver` is off unless a test turns it on). */
const PUBLIC_URL = "https://1.1.1.1/hooks";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Organizations, the back office (`admin@…`) and webhooks on (not delivering), on a clock at the real time. */
function setup(webhooks: WebhooksOptions = {}) {
  const env = createWebhooksTestAuth(webhooks);
  cleanups.push(() => env.auth.webhooks.stop());
  /** An organization `owner` created. */
  const organization = async (owner: Call) =>
    (await env.auth.organizations.create(owner, { name: "Acme" })).organization.id;
  return { ...env, organization };
}

/** A receiver that `cleanups` stops. */
async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  cleanups.push(() => started.stop());
  return started;
}

/** The field errors of a rejected call: `path rule` each. */
const fieldErrors = (promise: Promise<unknown>) =>
  promise.then(
    () => [],
    (error: ValidationError) => (error.issues ?? []).map((issue) => `${issue.path} ${issue.rule}`),
  );

/** The audit log's types, oldest first. */
async function auditTypes(auth: Auth, organizationId?: string): Promise<string[]> {
  await auth.idle();
  const page = await auth.host.listAuditLog(
    {},
    { limit: 200, ...(organizationId ? { organizationId } : {}) },
  );
  return page.items.map((item) => item.type).reverse();
}

describe("webhook management", () => {
  it("create - an organization's endpoint: the secret once, sealed in the store, the cursor at the head, webhook.created", async () => {
    const { auth, stores, user, organization } = setup();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const head = (await stores.auditLog.list({ order: "desc", limit: 1 }))[0]?.seq ?? 0;
    const created = await auth.webhooks.create(owner, {
      organizationId,
      url: PUBLIC_URL,
      events: ["member.joined", "organization.updated"],
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.endpoint).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: PUBLIC_URL,
      events: ["member.joined", "organization.updated"],
      enabled: true,
      disabledReason: null,
      createdAt: expect.any(String),
    });
    const stored = await stores.webhooks.findEndpoint(created.endpoint.id);
    expect(stored).toMatchObject({ organizationId, cursor: head, createdBy: owner.principal?.userId });
    expect(stored?.secrets).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(created.secret.slice(6));
    const listed = await auth.webhooks.list(owner, { organizationId });
    expect(listed.items).toEqual([created.endpoint]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    expect(await auditTypes(auth, organizationId)).toEqual(["organization.created", "webhook.created"]);
  });

  it("create - refused URLs and events: VALIDATION_FAILED with the field and its rule", async () => {
    const { auth, user, organization } = setup();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const create = (url: string, events: string[]) =>
      auth.webhooks.create(owner, { organizationId, url, events });
    const blocked = ["url webhook_url_not_allowed"];
    expect(await fieldErrors(create("http://1.1.1.1/hooks", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("https://127.0.0.1/hooks", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("https://[::1]/hooks", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("https://169.254.169.254/latest/meta-data", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("https://10.0.0.7/hooks", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("https://user:pw@1.1.1.1/hooks", ["*"]))).toEqual(blocked);
    expect(await fieldErrors(create("ftp://1.1.1.1/hooks", ["*"]))).toEqual(["url invalid_format"]);
    expect(await fieldErrors(create(`https://1.1.1.1/${"a".repeat(2000)}`, ["*"]))).toEqual(["url too_long"]);
    expect(await fieldErrors(create(PUBLIC_URL, ["login.succeeded", "user.exploded"]))).toEqual([
      "events.1 unknown_event",
    ]);
    expect(await fieldErrors(create(PUBLIC_URL, ["user.created", "user.created"]))).toEqual([
      "events.1 duplicate",
    ]);
    expect(await fieldErrors(create(PUBLIC_URL, ["*", "user.created"]))).toEqual(["events invalid"]);
    expect(await fieldErrors(create(PUBLIC_URL, []))).toEqual(["events too_few"]);
    expect(await fieldErrors(create(PUBLIC_URL, Array(101).fill("*")))).toContain("events too_many");
    expect((await auth.webhooks.list(owner, { organizationId })).items).toEqual([]);
  });

  it("create - allowPrivateNetworks lets http and private addresses in", async () => {
    const { auth, user, organization } = setup({ allowPrivateNetworks: true });
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const { endpoint } = await auth.webhooks.create(owner, {
      organizationId,
      url: "http://127.0.0.1:9/hooks",
      events: ["*"],
    });
    expect(endpoint.url).toBe("http://127.0.0.1:9/hooks");
  });

  it("create - at most maxEndpoints per scope: WEBHOOK_LIMIT_REACHED; other scopes count apart", async () => {
    const { auth, user, organization } = setup({ maxEndpoints: 2 });
    const owner = await user("owner@example.test");
    const admin = await user("admin@example.test");
    const first = await organization(owner);
    const second = await organization(owner);
    const create = (organizationId?: string) =>
      auth.webhooks.create(organizationId ? owner : admin, {
        organizationId,
        url: PUBLIC_URL,
        events: ["*"],
      });
    await create(first);
    await create(first);
    expect(await code(create(first))).toBe("WEBHOOK_LIMIT_REACHED");
    expect(await code(create(second))).toBe("OK");
    expect(await code(create())).toBe("OK");
    expect((await auth.webhooks.list(owner, { organizationId: first })).items).toHaveLength(2);
  });

  it("create - 10 at once with maxEndpoints 3: exactly 3 created, the others WEBHOOK_LIMIT_REACHED", async () => {
    const { auth, stores, user, organization } = setup({ maxEndpoints: 3 });
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const codes = await Promise.all(
      Array.from({ length: 10 }, () =>
        code(auth.webhooks.create(owner, { organizationId, url: PUBLIC_URL, events: ["*"] })),
      ),
    );
    expect(codes.filter((one) => one === "OK")).toHaveLength(3);
    expect(codes.filter((one) => one === "WEBHOOK_LIMIT_REACHED")).toHaveLength(7);
    expect(await stores.webhooks.listEndpoints(organizationId)).toHaveLength(3);
  });

  it("scope - a non-member, a member without webhook:manage, another organization's endpoint, the deployment's", async () => {
    const { auth, sent, user, organization } = setup();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const other = await organization(owner);
    const { endpoint } = await auth.webhooks.create(owner, {
      organizationId,
      url: PUBLIC_URL,
      events: ["*"],
    });
    const stranger = await user("eve@example.test");
    expect(await code(auth.webhooks.list(stranger, { organizationId }))).toBe("ORGANIZATION_NOT_FOUND");
    expect(await code(auth.webhooks.delete(stranger, { organizationId, endpointId: endpoint.id }))).toBe(
      "ORGANIZATION_NOT_FOUND",
    );
    const member = await user("member@example.test");
    await auth.organizations.invite(owner, {
      organizationId,
      body: { email: "member@example.test", role: "member" },
    });
    await auth.idle();
    const token = /token=([A-Za-z0-9_-]+)/.exec(String(sent.at(-1)?.text))?.[1] ?? "";
    await auth.organizations.acceptInvitation(member, { token });
    expect(await code(auth.webhooks.list(member, { organizationId }))).toBe("PERMISSION_DENIED");
    // The endpoint exists, but not in this organization nor in the deployment.
    const ref = { endpointId: endpoint.id };
    expect(await code(auth.webhooks.delete(owner, { ...ref, organizationId: other }))).toBe("NOT_FOUND");
    const admin = await user("admin@example.test");
    expect(await code(auth.webhooks.delete(admin, ref))).toBe("NOT_FOUND");
    expect(await code(auth.webhooks.listDeliveries(owner, { ...ref, organizationId: other }))).toBe(
      "NOT_FOUND",
    );
    expect(await code(auth.webhooks.delete(owner, { organizationId, endpointId: "not-an-id" }))).toBe(
      "NOT_FOUND",
    );
    // The deployment's endpoints are the back office's.
    expect(await code(auth.webhooks.list(owner))).toBe("ADMIN_REQUIRED");
    expect(await code(auth.webhooks.list({ principal: admin.principal }))).toBe("STEP_UP_REQUIRED");
    expect((await auth.webhooks.list(admin)).items).toEqual([]);
  });

  it("host API - fails closed: no principal is AUTHENTICATION_REQUIRED in every scope; off is NOT_FOUND", async () => {
    const { auth } = setup();
    const calls: Call[] = [{}, { actor: "script" } as Call, { stepUpToken: "x" }];
    for (const call of calls) {
      expect(await code(auth.webhooks.list(call))).toBe("AUTHENTICATION_REQUIRED");
      expect(await code(auth.webhooks.list(call, { organizationId: "org" }))).toBe("AUTHENTICATION_REQUIRED");
      const input = { url: PUBLIC_URL, events: ["*"] };
      expect(await code(auth.webhooks.create(call, input))).toBe("AUTHENTICATION_REQUIRED");
    }
    const off = createTestAuth({ email: { loginAlerts: false } }).auth;
    expect(off.webhooks.enabled).toBe(false);
    expect(await code(off.webhooks.list({}))).toBe("NOT_FOUND");
    await off.webhooks.deliverNow();
    await off.webhooks.stop();
  });

  it("update - events, off (manual) and on again (disabledReason cleared); nothing to change is VALIDATION_FAILED", async () => {
    const { auth, user, organization } = setup();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const { endpoint } = await auth.webhooks.create(owner, {
      organizationId,
      url: PUBLIC_URL,
      events: ["*"],
    });
    const ref = { organizationId, endpointId: endpoint.id };
    const off = await auth.webhooks.update(owner, { ...ref, enabled: false, events: ["member.joined"] });
    expect(off.endpoint).toMatchObject({
      enabled: false,
      disabledReason: "manual",
      events: ["member.joined"],
    });
    const on = await auth.webhooks.update(owner, { ...ref, enabled: true });
    expect(on.endpoint).toMatchObject({ enabled: true, disabledReason: null, events: ["member.joined"] });
    expect(await fieldErrors(auth.webhooks.update(owner, ref))).toEqual(["(body) required"]);
    expect(await fieldErrors(auth.webhooks.update(owner, { ...ref, events: ["nope"] }))).toEqual([
      "events.0 unknown_event",
    ]);
    expect((await auditTypes(auth, organizationId)).filter((type) => type.startsWith("webhook."))).toEqual([
      "webhook.created",
      "webhook.updated",
      "webhook.updated",
    ]);
  });

  it("rotateSecret - a new secret, the old one signing 24 hours more; delete removes the endpoint", async () => {
    const { auth, stores, clock, user, organization } = setup();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const created = await auth.webhooks.create(owner, { organizationId, url: PUBLIC_URL, events: ["*"] });
    const ref = { organizationId, endpointId: created.endpoint.id };
    const before = (await stores.webhooks.findEndpoint(ref.endpointId))?.secrets ?? [];
    const { secret } = await auth.webhooks.rotateSecret(owner, ref);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    const after = (await stores.webhooks.findEndpoint(ref.endpointId))?.secrets ?? [];
    expect(after).toEqual([
      { sealed: expect.any(String), expiresAt: null },
      { sealed: before[0]?.sealed, expiresAt: clock.now() + WEBHOOK_SECRET_OVERLAP_MS },
    ]);
    expect(await code(auth.webhooks.rotateSecret({ principal: owner.principal }, ref))).toBe(
      "STEP_UP_REQUIRED",
    );
    await auth.webhooks.delete(owner, ref);
    expect(await stores.webhooks.findEndpoint(ref.endpointId)).toBeNull();
    expect(await code(auth.webhooks.delete(owner, ref))).toBe("NOT_FOUND");
    expect((await auditTypes(auth, organizationId)).filter((type) => type.startsWith("webhook."))).toEqual([
      "webhook.created",
      "webhook.secret_rotated",
      "webhook.deleted",
    ]);
  });

  it("rotatedSecrets - expired ones go, at most three rotated-out ones stay", () => {
    const fresh = { sealed: "new", expiresAt: null };
    const now = 1_000_000;
    const current = [
      { sealed: "current", expiresAt: null },
      { sealed: "a", expiresAt: now + 10 },
      { sealed: "b", expiresAt: now + 20 },
      { sealed: "c", expiresAt: now + 30 },
      { sealed: "gone", expiresAt: now },
    ];
    expect(rotatedSecrets(current, fresh, now).map((secret) => secret.sealed)).toEqual([
      "new",
      "current",
      "c",
      "b",
    ]);
  });

  it("createAuth - webhooks without stores.webhooks or stores.auditLog: a TypeError naming the store", () => {
    const { webhooks: _webhooks, ...withoutWebhooks } = createMemoryStores({ sweepIntervalMs: 0 });
    const { auditLog: _auditLog, ...withoutAudit } = createMemoryStores({ sweepIntervalMs: 0 });
    const start = (stores: Parameters<typeof createAuth>[0]["stores"]) => () =>
      createAuth({
        secret: TEST_SECRET,
        stores,
        email: { enabled: false },
        logger: silentLogger,
        webhooks: {},
      });
    expect(start(withoutWebhooks)).toThrow(/"stores\.webhooks" is required while webhooks is configured/);
    expect(start(withoutAudit)).toThrow(/"stores\.auditLog" is required while webhooks is configured/);
  });
});

describe("webhook delivery through auth.webhooks", () => {
  it("deliverNow - signed messages in order; the deliveries listed; a redelivery with the same webhook-id", async () => {
    const { auth, clock, user, organization } = setup({ allowPrivateNetworks: true });
    const hook = await receiver();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const { endpoint, secret } = await auth.webhooks.create(owner, {
      organizationId,
      url: hook.url,
      events: ["*"],
    });
    hook.secrets = [secret];
    await auth.webhooks.deliverNow();
    // A second apart, so that the deliveries' order (newest first) is the events' order.
    for (const name of ["Acme 2", "Acme 3"]) {
      clock.advance(1000);
      await auth.organizations.update(owner, { organizationId, body: { name } });
      await auth.webhooks.deliverNow();
    }
    expect(hook.received.map((message) => [message.type, message.verified])).toEqual([
      ["webhook.created", true],
      ["organization.updated", true],
      ["organization.updated", true],
    ]);
    const ref = { organizationId, endpointId: endpoint.id };
    const { items } = await auth.webhooks.listDeliveries(owner, ref);
    expect(items.map((item) => [item.event, item.status, item.attempts, item.lastStatusCode])).toEqual([
      ["organization.updated", "succeeded", 1, 200],
      ["organization.updated", "succeeded", 1, 200],
      ["webhook.created", "succeeded", 1, 200],
    ]);
    const page = await auth.webhooks.listDeliveries(owner, { ...ref, limit: "1", before: items[0]?.id });
    expect(page.items.map((item) => item.id)).toEqual([items[1]?.id]);
    expect(await fieldErrors(auth.webhooks.listDeliveries(owner, { ...ref, before: "x" }))).toEqual([
      "before invalid_cursor",
    ]);
    const first = items[2];
    const { delivery } = await auth.webhooks.redeliver(owner, { ...ref, deliveryId: first?.id ?? "" });
    expect(delivery).toMatchObject({
      event: "webhook.created",
      status: "pending",
      attempts: 0,
      redelivery: true,
    });
    await auth.webhooks.deliverNow();
    expect(hook.received.map((message) => message.id)).toEqual([
      ...hook.received.slice(0, 3).map((message) => message.id),
      hook.received[0]?.id,
    ]);
    expect(await code(auth.webhooks.redeliver(owner, { ...ref, deliveryId: "0".repeat(32) }))).toBe(
      "NOT_FOUND",
    );
  });

  it("onAppended - a started worker is woken by the audit append: delivered without waiting for the poll", async () => {
    const { auth, user, organization } = setup({
      allowPrivateNetworks: true,
      deliver: true,
      pollIntervalMs: 600_000,
    });
    const hook = await receiver();
    const owner = await user("owner@example.test");
    const organizationId = await organization(owner);
    const { secret } = await auth.webhooks.create(owner, {
      organizationId,
      url: hook.url,
      events: ["organization.updated"],
    });
    hook.secrets = [secret];
    await auth.organizations.update(owner, { organizationId, body: { name: "Acme 2" } });
    const deadline = Date.now() + 5000;
    while (hook.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(hook.received.map((message) => message.type)).toEqual(["organization.updated"]);
  });

  it("onDisabled - a 410 turns the endpoint off: webhook.disabled (system) and an email to its creator", async () => {
    const { auth, sent, user } = setup({ allowPrivateNetworks: true });
    const hook = await receiver();
    const admin = await user("admin@example.test");
    const { endpoint, secret } = await auth.webhooks.create(admin, {
      url: hook.url,
      events: ["user.created"],
    });
    hook.secrets = [secret];
    hook.status = 410;
    await auth.host.createUser({}, { email: "new@example.test", emailVerified: true });
    await auth.webhooks.deliverNow();
    await auth.idle();
    const { items } = await auth.webhooks.list(admin);
    expect(items).toEqual([{ ...endpoint, enabled: false, disabledReason: "gone" }]);
    const mail = sent.find((message) => message.kind === "webhook-disabled");
    expect(mail).toMatchObject({ to: "admin@example.test" });
    expect(mail?.text).toContain(hook.url);
    expect(mail?.text).toContain("410");
    const page = await auth.host.listAuditLog({}, { type: "webhook.disabled" });
    expect(page.items).toMatchObject([
      { actorType: "system", userId: admin.principal?.userId, reason: "gone" },
    ]);
    // Turned on again: it goes on from where it stopped.
    hook.status = 200;
    await auth.webhooks.update(admin, { endpointId: endpoint.id, enabled: true });
    await auth.host.createUser({}, { email: "newer@example.test", emailVerified: true });
    await auth.webhooks.deliverNow();
    expect(hook.received.map((message) => message.type)).toEqual(["user.created"]);
  });
});
