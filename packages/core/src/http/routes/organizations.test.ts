import { describe, expect, it } from "vitest";
import { createTestAuth, PASSWORD, signIn } from "../../test-support.js";
import { createHttpHandler } from "../handler.js";
import type { HttpRequest, HttpResponse } from "../types.js";

const ORGANIZATIONS = { permissions: ["project:read", "project:write"], memberPermissions: ["project:read"] };

/** An auth (organizations on unless `off`), its handler, and a signed-in user's access token per address. */
async function setup({ off = false } = {}) {
  const env = createTestAuth({
    email: { loginAlerts: false },
    ...(off ? {} : { organizations: ORGANIZATIONS }),
  });
  const handler = createHttpHandler(env.auth);
  const tokenOf = async (email: string) => {
    await env.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
    return (await signIn(env.auth, { email, password: PASSWORD })).accessToken;
  };
  const send = async (method: string, path: string, token: string, body?: unknown) =>
    (await handler.handle({
      method,
      url: `/api/auth${path}`,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })) as HttpResponse;
  return { ...env, handler, tokenOf, send };
}

const json = (response: HttpResponse) => JSON.parse(String(response.body)) as Record<string, unknown>;

describe("organization routes", () => {
  it("POST /organizations - organizations off: 404 NOT_FOUND, as an unknown route", async () => {
    const { tokenOf, send } = await setup({ off: true });
    const response = await send("POST", "/organizations", await tokenOf("ada@example.test"), {
      name: "Acme",
    });
    expect(response.status).toBe(404);
    expect(json(response).code).toBe("NOT_FOUND");
  });

  it("GET /organizations/:id - 201 for its creator; a non-member 404 ORGANIZATION_NOT_FOUND", async () => {
    const { tokenOf, send } = await setup();
    const ada = await tokenOf("ada@example.test");
    const created = await send("POST", "/organizations", ada, { name: "Acme" });
    expect(created.status).toBe(201);
    const { organization } = json(created) as { organization: { id: string } };
    expect((await send("GET", `/organizations/${organization.id}`, ada)).status).toBe(200);
    const stranger = await send(
      "GET",
      `/organizations/${organization.id}`,
      await tokenOf("eve@example.test"),
    );
    expect(stranger.status).toBe(404);
    expect(json(stranger).code).toBe("ORGANIZATION_NOT_FOUND");
  });

  it("POST /organizations/:id/activate - a new access token; the host's check then knows the organization", async () => {
    const { tokenOf, send, handler } = await setup();
    const ada = await tokenOf("ada@example.test");
    const { organization } = json(await send("POST", "/organizations", ada, { name: "Acme" })) as {
      organization: { id: string };
    };
    const guarded = (token: string): Omit<HttpRequest, "body"> => ({
      method: "GET",
      url: "/api/projects",
      headers: { authorization: `Bearer ${token}` },
    });
    const before = await handler.authenticate(guarded(ada), "project:read");
    expect(before.response?.status).toBe(403);
    const activated = await send("POST", `/organizations/${organization.id}/activate`, ada);
    expect(activated.status).toBe(200);
    const body = json(activated) as { accessToken: string; activeOrganization: { id: string; role: string } };
    expect(body.activeOrganization).toMatchObject({ id: organization.id, role: "owner" });
    const after = await handler.authenticate(guarded(body.accessToken), "project:write");
    expect(after.organization).toMatchObject({ organizationId: organization.id, role: "owner" });
    const me = json(await send("GET", "/me", body.accessToken));
    expect(me.activeOrganization).toMatchObject({ id: organization.id });
  });

  it("GET /openapi.json - documents every organization route, and the back office's list with admin on", async () => {
    const env = createTestAuth({
      email: { loginAlerts: false },
      organizations: ORGANIZATIONS,
      admin: { authorize: () => true },
    });
    const response = (await createHttpHandler(env.auth).handle({
      method: "GET",
      url: "/api/auth/openapi.json",
      headers: {},
    })) as HttpResponse;
    const paths = Object.keys((json(response) as { paths: Record<string, unknown> }).paths);
    for (const path of [
      "/api/auth/organizations",
      "/api/auth/organizations/{id}",
      "/api/auth/organizations/{id}/activate",
      "/api/auth/organizations/{id}/members/{userId}",
      "/api/auth/organizations/{id}/invitations/{invitationId}",
      "/api/auth/organizations/{id}/roles/{role}",
      "/api/auth/invitations/accept",
      "/api/auth/admin/organizations",
    ])
      expect(paths).toContain(path);
  });
});
