// Webhooks through each adapter: an organization's endpoints over HTTP (created with a step-up,
// listed without their secret), an organization's change delivered to a real receiver that
// verifies it with `standardwebhooks`, its delivery listed and sent again, and the refusals of
// strangers, members without `webhook:manage`, private addresses and API keys.
import type { AuthOptions } from "@portcullis/core";
import { describe, expect, onTestFinished } from "vitest";
import type { HttpReply } from "../http-client.js";
import { deliveredOnceView, startWebhookReceiver, type WebhookReceiver } from "../webhook-receiver.js";
import { expectKeyNotAllowed, ROOMY_LIMIT, sentWith } from "./api-keys-fixture.js";
import {
  type AdapterSuiteOptions,
  type App,
  type AppTests,
  type Boot,
  expectError,
  runAppTests,
} from "./fixture.js";
import {
  acmeOwner,
  as,
  bootOrganizations,
  invite,
  join,
  type Member,
  member,
  stepUp,
} from "./organization-fixture.js";

/** A public address that the tests never send to (`deliver: false` where it is used). */
const PUBLIC_URL = "https://1.1.1.1/hooks";
/** The event an invitation sends. */
const INVITED = "member.invited";

/** The app with organizations and webhooks on; without `webhooks`, an instance that does not send. */
async function bootWebhooks(boot: Boot, webhooks: AuthOptions["webhooks"] = { deliver: false }, extra = {}) {
  const app = await bootOrganizations(boot, { webhooks, ...extra });
  // The receiver checks the signature's timestamp against the machine's clock (5 minutes).
  app.clock.set(Date.now());
  onTestFinished(() => app.auth.webhooks.stop());
  return app;
}

/** The app delivering to a receiver on 127.0.0.1, polled every 50 ms; stopped after the test. */
async function bootDelivering(boot: Boot): Promise<{ app: App; receiver: WebhookReceiver }> {
  const receiver = await startWebhookReceiver();
  onTestFinished(() => receiver.stop());
  const app = await bootWebhooks(boot, { allowPrivateNetworks: true, pollIntervalMs: 50, retryScale: 0.001 });
  return { app, receiver };
}

const webhooksPath = (organizationId: string) => `/organizations/${organizationId}/webhooks`;

/** `owner` creates an endpoint on `url` for `events` (stepping up first); the 201's body. */
async function createEndpoint(
  app: App,
  owner: Member,
  organizationId: string,
  url: string,
  events = [INVITED],
) {
  const reply = await as(app, owner, "create endpoint", "POST", webhooksPath(organizationId), {
    body: { url, events },
    headers: await stepUp(app, owner),
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body as { endpoint: { id: string; url: string }; secret: string };
}

/** Calls `read` (not recorded) until `done` holds of its answer, for at most 5 seconds. */
async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited 5 s for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

type Delivery = { id: string; event: string; status: string; attempts: number; redelivery: boolean };

/** The endpoint's deliveries (newest first), read without recording (for polling). */
const deliveries = async (app: App, owner: Member, path: string, record = false) =>
  ((await as(app, owner, "deliveries", "GET", `${path}/deliveries`, { record })).body.items ??
    []) as Delivery[];

/**
 * Acme's owner with an endpoint on `receiver` for invitations, and one invitation delivered (the
 * receiver verified it): the endpoint's path and the message's `webhook-id`.
 */
async function oneInvitationDelivered(app: App, receiver: WebhookReceiver) {
  const { owner, organizationId } = await acmeOwner(app);
  const { endpoint, secret } = await createEndpoint(app, owner, organizationId, receiver.url);
  receiver.secrets.push(secret);
  const invited = await invite(app, owner, organizationId, "guest@example.test", "member");
  expect(invited.status, invited.text).toBe(201);
  await until(
    "the invitation's message",
    () => receiver.received,
    (received) => received.length > 0,
  );
  expect(receiver.received).toHaveLength(1);
  const [message] = receiver.received;
  expect(message).toMatchObject({ type: INVITED, verified: true });
  expect(message?.payload.data).toMatchObject({ organizationId, actorId: owner.user.id });
  const path = `${webhooksPath(organizationId)}/${endpoint.id}`;
  return { owner, organizationId, path, webhookId: String(message?.id) };
}

/** Every organization webhook route of `organizationId`, with a body where it takes one. */
function everyRoute(organizationId: string, endpointId: string) {
  const base = webhooksPath(organizationId);
  const one = `${base}/${endpointId}`;
  return [
    ["POST", base, { url: PUBLIC_URL, events: [INVITED] }],
    ["GET", base, undefined],
    ["PATCH", one, { enabled: false }],
    ["DELETE", one, undefined],
    ["POST", `${one}/rotate-secret`, undefined],
    ["GET", `${one}/deliveries`, undefined],
    ["POST", `${one}/deliveries/${"0".repeat(32)}/redeliver`, undefined],
  ] as const;
}

/** Each route of `everyRoute` as `who` (with a step-up token) answers `status` and `code`. */
async function expectEveryRoute(
  app: App,
  who: Member,
  organizationId: string,
  endpointId: string,
  status: number,
  code: string,
) {
  const headers = await stepUp(app, who);
  for (const [method, path, body] of everyRoute(organizationId, endpointId)) {
    const reply: HttpReply = await as(app, who, `${method} ${path}`, method, path, {
      headers,
      ...(body === undefined ? {} : { body }),
    });
    expectError(reply, status, code);
  }
}

export const webhooksTests: AppTests = {
  "POST /organizations/:id/webhooks - needs a step-up; 201 shows the whsec_ secret once; GET lists the endpoint without it":
    async (boot) => {
      const app = await bootWebhooks(boot);
      const { owner, organizationId } = await acmeOwner(app);
      const path = webhooksPath(organizationId);
      const body = { url: PUBLIC_URL, events: [INVITED] };
      expectError(await as(app, owner, "no step-up", "POST", path, { body }), 401, "STEP_UP_REQUIRED");
      const { endpoint, secret } = await createEndpoint(app, owner, organizationId, PUBLIC_URL);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      expect(endpoint).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        url: PUBLIC_URL,
        events: [INVITED],
        enabled: true,
        disabledReason: null,
        createdAt: expect.any(String),
      });
      const listed = await as(app, owner, "list", "GET", path);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({ items: [endpoint] });
      expect(listed.text).not.toContain(secret.slice("whsec_".length));
      expect(listed.text).not.toContain("whsec_");
    },

  "POST /organizations/:id/invitations - delivered to the endpoint, signed (standardwebhooks verifies); GET …/deliveries shows it succeeded":
    async (boot) => {
      const { app, receiver } = await bootDelivering(boot);
      const { owner, path, webhookId } = await oneInvitationDelivered(app, receiver);
      expect(webhookId).toMatch(/^[0-9a-f]{32}$/);
      const items = await until(
        "the delivery to succeed",
        () => deliveries(app, owner, path),
        (list) => list.some((delivery) => delivery.status === "succeeded"),
      );
      expect(items).toEqual([expect.objectContaining({ event: INVITED, status: "succeeded", attempts: 1 })]);
      const listed = await as(app, owner, "deliveries", "GET", `${path}/deliveries`);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({
        items: [deliveredOnceView(INVITED)],
      });
    },

  "POST /organizations/:id/webhooks/:endpointId/deliveries/:deliveryId/redeliver - 202; the same webhook-id arrives again":
    async (boot) => {
      const { app, receiver } = await bootDelivering(boot);
      const { owner, path, webhookId } = await oneInvitationDelivered(app, receiver);
      const [first] = await until(
        "the delivery to succeed",
        () => deliveries(app, owner, path),
        (list) => list.some((delivery) => delivery.status === "succeeded"),
      );
      const reply = await as(app, owner, "redeliver", "POST", `${path}/deliveries/${first?.id}/redeliver`);
      expect(reply.status, reply.text).toBe(202);
      expect(reply.body.delivery).toMatchObject({ event: INVITED, redelivery: true });
      await until(
        "the redelivered message",
        () => receiver.received,
        (received) => received.length > 1,
      );
      expect(receiver.received.map((message) => [message.id, message.verified])).toEqual([
        [webhookId, true],
        [webhookId, true],
      ]);
      expect(receiver.counts()).toEqual({ distinct: 1, duplicates: 1 });
      const items = await until(
        "the redelivery to succeed",
        () => deliveries(app, owner, path),
        (list) => list.every((delivery) => delivery.status === "succeeded"),
      );
      expect(items.map((delivery) => delivery.redelivery)).toEqual([true, false]);
    },

  "/organizations/:id/webhooks - a non-member gets 404 ORGANIZATION_NOT_FOUND on every route": async (
    boot,
  ) => {
    const app = await bootWebhooks(boot);
    const { owner, organizationId } = await acmeOwner(app);
    const { endpoint } = await createEndpoint(app, owner, organizationId, PUBLIC_URL);
    const stranger = await member(app, "stranger@example.test");
    await expectEveryRoute(app, stranger, organizationId, endpoint.id, 404, "ORGANIZATION_NOT_FOUND");
    const listed = await as(app, owner, "still there", "GET", webhooksPath(organizationId));
    expect(listed.body).toEqual({ items: [endpoint] });
  },

  "/organizations/:id/webhooks - a member without webhook:manage gets 403 PERMISSION_DENIED on every route":
    async (boot) => {
      const app = await bootWebhooks(boot);
      const { owner, organizationId } = await acmeOwner(app);
      const { endpoint } = await createEndpoint(app, owner, organizationId, PUBLIC_URL);
      const plain = await member(app, "plain@example.test");
      await join(app, owner, organizationId, plain, "member");
      await expectEveryRoute(app, plain, organizationId, endpoint.id, 403, "PERMISSION_DENIED");
      const listed = await as(app, owner, "still there", "GET", webhooksPath(organizationId));
      expect(listed.body).toEqual({ items: [endpoint] });
    },

  "POST /organizations/:id/webhooks - http: and private addresses are 400 VALIDATION_FAILED on url without allowPrivateNetworks":
    async (boot) => {
      const app = await bootWebhooks(boot);
      const { owner, organizationId } = await acmeOwner(app);
      const headers = await stepUp(app, owner);
      for (const url of ["http://127.0.0.1:8080/hook", "http://1.1.1.1/hooks", "https://10.0.0.1/hooks"]) {
        const reply = await as(app, owner, url, "POST", webhooksPath(organizationId), {
          body: { url, events: [INVITED] },
          headers,
        });
        expectError(reply, 400, "VALIDATION_FAILED");
        expect(reply.body.errors).toEqual([
          expect.objectContaining({ path: "url", code: "webhook_url_not_allowed" }),
        ]);
      }
      const listed = await as(app, owner, "none made", "GET", webhooksPath(organizationId));
      expect(listed.body).toEqual({ items: [] });
    },

  "/organizations/:id/webhooks - an API key is refused with 403 API_KEY_NOT_ALLOWED on every route": async (
    boot,
  ) => {
    const app = await bootWebhooks(boot, { deliver: false }, { apiKeys: { requestsPerMinute: ROOMY_LIMIT } });
    const { owner, organizationId } = await acmeOwner(app);
    const { endpoint } = await createEndpoint(app, owner, organizationId, PUBLIC_URL);
    const created = await as(app, owner, "create key", "POST", "/api-keys", {
      body: { name: "Org", organizationId, permissions: ["project:read"] },
      headers: await stepUp(app, owner),
    });
    expect(created.status, created.text).toBe(201);
    const key = String(created.body.key);
    for (const route of everyRoute(organizationId, endpoint.id))
      await expectKeyNotAllowed(app, route, sentWith(key));
    const listed = await as(app, owner, "still there", "GET", webhooksPath(organizationId));
    expect(listed.body).toEqual({ items: [endpoint] });
  },
};

/**
 * Webhooks (an organization's endpoints, delivery to a receiver on 127.0.0.1, redelivery and the
 * routes' refusals), with a transcript: `start` as for `runOrganizationsAdapterSuite`;
 * `createStores` must include `organizations`, `apiKeys`, `webhooks` and `auditLog`. The delivery
 * tests set the suite's fake clock to the machine's (signatures are checked against it) and wait
 * in real time, polling, for at most 5 seconds.
 */
export function runWebhooksAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "transcripts">,
): void {
  describe(`webhooks: ${options.name}`, () => runAppTests(options, "webhooks", webhooksTests));
}
