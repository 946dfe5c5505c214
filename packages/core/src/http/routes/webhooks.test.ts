import { deliveredOnceView, startWebhookReceiver } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { WebhooksOptions } from "../../options/webhook-options.js";
import { createTestAuth, createWebhooksTestAuth } from "../../test-support.js";
import { createHttpHandler } from "../handler.js";
import type { HttpResponse } from "../types.js";

const PUBLIC_URL = "https://1.1.1.1/hooks";

/** Organizations, the back office (`admin@…`) and webhooks on (not delivering); header authentication. */
async function setup(webhooks: WebhooksOptions = {}) {
  const env = createWebhooksTestAuth(webhooks);
  const handler = createHttpHandler(env.auth);
  const send = async (
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    tokens: { accessToken: string; stepUpToken?: string },
    body?: unknown,
  ) => {
    const response = (await handler.handle({
      method,
      url: `/api/auth${path}`,
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        ...(tokens.stepUpToken ? { "x-step-up-token": tokens.stepUpToken } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })) as HttpResponse;
    return { status: response.status, body: response.body ? JSON.parse(String(response.body)) : null };
  };
  return { ...env, tokensOf: env.user, send };
}

describe("webhook routes", () => {
  it("POST /organizations/:id/webhooks - 201 with the secret once; non-member 404, no permission 403, no step-up 401", async () => {
    const { auth, sent, tokensOf, send } = await setup();
    const owner = await tokensOf("owner@example.test");
    const { organization } = await auth.organizations.create(owner, { name: "Acme" });
    const path = `/organizations/${organization.id}/webhooks`;
    const body = { url: PUBLIC_URL, events: ["member.joined"] };
    const created = await send("POST", path, owner, body);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      endpoint: {
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        url: PUBLIC_URL,
        events: ["member.joined"],
        enabled: true,
        disabledReason: null,
        createdAt: expect.any(String),
      },
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await send("GET", path, owner);
    expect(listed).toEqual({ status: 200, body: { items: [created.body.endpoint] } });

    const noStepUp = await send("POST", path, { accessToken: owner.accessToken }, body);
    expect([noStepUp.status, noStepUp.body.code]).toEqual([401, "STEP_UP_REQUIRED"]);
    const stranger = await tokensOf("eve@example.test");
    for (const [method, at] of [
      ["GET", path],
      ["POST", path],
      ["DELETE", `${path}/${created.body.endpoint.id}`],
    ] as const) {
      const refused = await send(method, at, stranger, method === "POST" ? body : undefined);
      expect([refused.status, refused.body.code]).toEqual([404, "ORGANIZATION_NOT_FOUND"]);
    }
    const member = await tokensOf("member@example.test");
    const invitation = { email: "member@example.test", role: "member" };
    await auth.organizations.invite(owner, { organizationId: organization.id, body: invitation });
    await auth.idle();
    const token = /token=([A-Za-z0-9_-]+)/.exec(String(sent.at(-1)?.text))?.[1] ?? "";
    await auth.organizations.acceptInvitation(member, { token });
    const denied = await send("GET", path, member);
    expect([denied.status, denied.body.code]).toEqual([403, "PERMISSION_DENIED"]);
  });

  it("POST …/webhooks - 400 with field errors for http:, loopback, the metadata address and an unknown event; 409 past the limit", async () => {
    const { auth, tokensOf, send } = await setup({ maxEndpoints: 1 });
    const owner = await tokensOf("owner@example.test");
    const { organization } = await auth.organizations.create(owner, { name: "Acme" });
    const path = `/organizations/${organization.id}/webhooks`;
    const cases: [unknown, { path: string; code: string }[]][] = [
      [{ url: "http://1.1.1.1/hooks", events: ["*"] }, [{ path: "url", code: "webhook_url_not_allowed" }]],
      [{ url: "https://127.0.0.1/hooks", events: ["*"] }, [{ path: "url", code: "webhook_url_not_allowed" }]],
      [
        { url: "https://169.254.169.254/latest/meta-data/", events: ["*"] },
        [{ path: "url", code: "webhook_url_not_allowed" }],
      ],
      [
        { url: PUBLIC_URL, events: ["user.created", "no.such"] },
        [{ path: "events.1", code: "unknown_event" }],
      ],
      [
        { url: "not a url", events: "*" },
        [
          { path: "url", code: "invalid_format" },
          { path: "events", code: "not_array" },
        ],
      ],
      [["an", "array"], [{ path: "(body)", code: "not_object" }]],
    ];
    for (const [body, errors] of cases) {
      const answer = await send("POST", path, owner, body);
      expect([answer.status, answer.body.code], JSON.stringify(body)).toEqual([400, "VALIDATION_FAILED"]);
      expect(
        answer.body.errors.map((error: { path: string; code: string }) => ({
          path: error.path,
          code: error.code,
        })),
      ).toEqual(errors);
    }
    expect((await send("POST", path, owner, { url: PUBLIC_URL, events: ["*"] })).status).toBe(201);
    const full = await send("POST", path, owner, { url: PUBLIC_URL, events: ["*"] });
    expect([full.status, full.body.code]).toEqual([409, "WEBHOOK_LIMIT_REACHED"]);
  });

  it("PATCH, rotate-secret, DELETE - change, a new secret once, removal; another organization's endpoint is 404", async () => {
    const { auth, tokensOf, send } = await setup();
    const owner = await tokensOf("owner@example.test");
    const { organization } = await auth.organizations.create(owner, { name: "Acme" });
    const other = (await auth.organizations.create(owner, { name: "Other" })).organization;
    const path = `/organizations/${organization.id}/webhooks`;
    const created = (await send("POST", path, owner, { url: PUBLIC_URL, events: ["*"] })).body;
    const one = `${path}/${created.endpoint.id}`;
    const patched = await send("PATCH", one, owner, { enabled: false, events: ["member.removed"] });
    expect(patched.status).toBe(200);
    expect(patched.body.endpoint).toMatchObject({
      enabled: false,
      disabledReason: "manual",
      events: ["member.removed"],
    });
    expect((await send("PATCH", one, owner, {})).body.errors).toEqual([
      expect.objectContaining({ path: "(body)", code: "required" }),
    ]);
    const rotated = await send("POST", `${one}/rotate-secret`, owner);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    expect((await send("POST", `${one}/rotate-secret`, { accessToken: owner.accessToken })).status).toBe(401);
    const elsewhere = await send(
      "DELETE",
      `/organizations/${other.id}/webhooks/${created.endpoint.id}`,
      owner,
    );
    expect([elsewhere.status, elsewhere.body.code]).toEqual([404, "NOT_FOUND"]);
    expect(await send("DELETE", one, owner)).toEqual({ status: 200, body: { success: true } });
    expect((await send("DELETE", one, owner)).status).toBe(404);
    expect((await send("GET", path, owner)).body.items).toEqual([]);
  });

  it("GET …/deliveries, POST …/redeliver - the attempts listed; a redelivery answered 202", async () => {
    const { auth, tokensOf, send } = await setup({ allowPrivateNetworks: true });
    const hook = await startWebhookReceiver();
    try {
      const owner = await tokensOf("owner@example.test");
      const { organization } = await auth.organizations.create(owner, { name: "Acme" });
      const path = `/organizations/${organization.id}/webhooks`;
      const created = (await send("POST", path, owner, { url: hook.url, events: ["organization.updated"] }))
        .body;
      hook.secrets = [created.secret];
      await auth.organizations.update(owner, { organizationId: organization.id, body: { name: "Acme 2" } });
      await auth.webhooks.deliverNow();
      const deliveries = await send("GET", `${path}/${created.endpoint.id}/deliveries?limit=10`, owner);
      expect(deliveries.status).toBe(200);
      expect(deliveries.body.items).toEqual([deliveredOnceView("organization.updated")]);
      const badLimit = await send("GET", `${path}/${created.endpoint.id}/deliveries?limit=0`, owner);
      expect(badLimit.status).toBe(400);
      const id = deliveries.body.items[0].id;
      const again = await send("POST", `${path}/${created.endpoint.id}/deliveries/${id}/redeliver`, owner);
      expect(again.status).toBe(202);
      expect(again.body.delivery).toMatchObject({
        event: "organization.updated",
        status: "pending",
        redelivery: true,
      });
      await auth.webhooks.deliverNow();
      expect(hook.received.map((message) => message.id)).toEqual([
        hook.received[0]?.id,
        hook.received[0]?.id,
      ]);
      const unknown = await send(
        "POST",
        `${path}/${created.endpoint.id}/deliveries/${"0".repeat(32)}/redeliver`,
        owner,
      );
      expect([unknown.status, unknown.body.code]).toEqual([404, "NOT_FOUND"]);
    } finally {
      await hook.stop();
      await auth.webhooks.stop();
    }
  });

  it("/admin/webhooks - the deployment's endpoints: admins with a step-up only", async () => {
    const { tokensOf, send } = await setup();
    const user = await tokensOf("ada@example.test");
    const refused = await send("POST", "/admin/webhooks", user, { url: PUBLIC_URL, events: ["*"] });
    expect([refused.status, refused.body.code]).toEqual([403, "ADMIN_REQUIRED"]);
    const admin = await tokensOf("admin@example.test");
    const noStepUp = await send("GET", "/admin/webhooks", { accessToken: admin.accessToken });
    expect([noStepUp.status, noStepUp.body.code]).toEqual([401, "STEP_UP_REQUIRED"]);
    const created = await send("POST", "/admin/webhooks", admin, {
      url: PUBLIC_URL,
      events: ["user.created"],
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect((await send("GET", "/admin/webhooks", admin)).body.items).toEqual([created.body.endpoint]);
    const one = `/admin/webhooks/${created.body.endpoint.id}`;
    expect((await send("GET", `${one}/deliveries`, admin)).body).toEqual({ items: [] });
    expect((await send("DELETE", one, admin)).status).toBe(200);
  });

  it("routes - mounted only with webhooks on", async () => {
    const env = createTestAuth({ organizations: { permissions: [] }, email: { loginAlerts: false } });
    const handler = createHttpHandler(env.auth);
    const answer = (await handler.handle({
      method: "GET",
      url: "/api/auth/admin/webhooks",
      headers: {},
    })) as HttpResponse;
    expect(answer.status).toBe(404);
  });
});
