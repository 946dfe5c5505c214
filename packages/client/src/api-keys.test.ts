// API keys through the client against a real server (express adapter, memory stores, a fake clock
// shared with the client): a key is made after a step-up (the client sends the step-up token it
// holds, as for every step-up route), is shown once, works on the host's routes and stops working
// once deleted.
import { requireAuth } from "@portcullis/adapter-express";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { isPortcullisError } from "./index.js";
import { ADA, listenWithAuth, MODES, PASSWORD, projectsApp, signedInClient } from "./test-server.js";

/** A server with organizations and API keys on; host routes `GET /api/whoami` and `/api/projects`. */
async function startServer() {
  const clock = createFakeClock({ tick: 1 });
  const { auth, app } = await projectsApp(clock, {
    organizations: { permissions: ["project:read", "project:write"] },
    apiKeys: {},
  });
  app.get("/api/whoami", requireAuth(auth), (req, res) => void res.json({ userId: req.auth?.userId }));
  const baseUrl = await listenWithAuth(app, auth);
  const origin = new URL(baseUrl).origin;
  const signedIn = (mode: (typeof MODES)[number]) =>
    signedInClient(baseUrl, clock, mode, { email: ADA, password: PASSWORD });
  /** A script's call with the key alone (no session). */
  const withKey = (path: string, key: string) => fetch(`${origin}${path}`, { headers: { "x-api-key": key } });
  return { signedIn, withKey };
}

describe("api keys", () => {
  it.each(MODES)(
    "create (%s mode) - needs a step-up; the key is in the answer once, works on the host's route, and is refused once deleted",
    async (mode) => {
      const server = await startServer();
      const client = await server.signedIn(mode);
      const refused = await client.apiKeys.create({ name: "CI" }).catch((error: unknown) => error);
      expect(isPortcullisError(refused, "STEP_UP_REQUIRED")).toBe(true);

      await client.stepUp({ password: PASSWORD });
      const { apiKey, key } = await client.apiKeys.create({ name: "CI", expiresInDays: 30 });
      expect(key).toMatch(/^pc_[0-9A-Za-z]{49}$/);
      expect(apiKey).toMatchObject({
        name: "CI",
        start: key.slice(0, 11),
        organizationId: null,
        permissions: null,
      });
      expect(apiKey.expiresAt).toEqual(expect.any(String));
      const listed = await client.apiKeys.list();
      expect(listed.items.map((item) => item.id)).toEqual([apiKey.id]);
      expect(JSON.stringify(listed)).not.toContain(key);

      const me = await client.me();
      const used = await server.withKey("/api/whoami", key);
      expect(used.status).toBe(200);
      expect(await used.json()).toEqual({ userId: me.id });

      expect(await client.apiKeys.delete(apiKey.id)).toEqual({ success: true });
      expect((await client.apiKeys.list()).items).toEqual([]);
      const after = await server.withKey("/api/whoami", key);
      expect(after.status).toBe(401);
      expect(((await after.json()) as { code: string }).code).toBe("API_KEY_INVALID");
    },
  );

  it("organization - a key with project:read reads the organization's projects, is listed for the organization only", async () => {
    const server = await startServer();
    const client = await server.signedIn("header");
    const { organization } = await client.organizations.create({ name: "Acme" });
    await client.stepUp({ password: PASSWORD });
    const { apiKey, key } = await client.apiKeys.create({
      name: "Deploy",
      organizationId: organization.id,
      permissions: ["project:read"],
    });
    expect(apiKey).toMatchObject({ organizationId: organization.id, permissions: ["project:read"] });
    expect((await client.apiKeys.list({ organizationId: organization.id })).items.map((k) => k.id)).toEqual([
      apiKey.id,
    ]);
    expect((await client.apiKeys.list()).items).toEqual([]);

    const projects = await server.withKey("/api/projects", key);
    expect(projects.status).toBe(200);
    expect(await projects.json()).toEqual({ organizationId: organization.id });
  });

  it("delete - someone else's or an unknown key is NOT_FOUND", async () => {
    const server = await startServer();
    const client = await server.signedIn("header");
    const refused = await client.apiKeys.delete("no-such-key").catch((error: unknown) => error);
    expect(isPortcullisError(refused, "NOT_FOUND")).toBe(true);
  });
});
