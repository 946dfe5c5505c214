// Organizations through the client against a real server (express adapter, memory stores, a fake
// clock shared with the client): activating one gives the session a new access token, which the
// client keeps (header mode) and shares as a refresh's, so the next call names the organization.
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { type AuthClientOptions, memoryStorage } from "./index.js";
import { fakeBrowser } from "./test-browser.js";
import { ADA, listenWithAuth, MODES, PASSWORD, projectsApp, signedInClient } from "./test-server.js";

/** A server with organizations on and a host route `GET /api/projects` needing `project:read`. */
async function startServer() {
  const clock = createFakeClock({ tick: 1 });
  const { auth, app } = await projectsApp(clock, {
    organizations: { permissions: ["project:read"], memberPermissions: ["project:read"] },
  });
  const baseUrl = await listenWithAuth(app, auth);
  /** A signed-in client of `mode` (a cookie jar standing in for the browser in cookie mode). */
  const signedIn = (mode: (typeof MODES)[number], options: Partial<AuthClientOptions> = {}) =>
    signedInClient(baseUrl, clock, mode, { email: ADA, password: PASSWORD }, options);
  return { signedIn, projectsUrl: `${new URL(baseUrl).origin}/api/projects` };
}

describe("organizations", () => {
  it.each(MODES)(
    "activate (%s mode) - create, activate, /me shows the active organization, and the host's route answers with it",
    async (mode) => {
      const server = await startServer();
      const client = await server.signedIn(mode);
      const { organization, role } = await client.organizations.create({ name: "Acme" });
      expect(role).toBe("owner");
      expect((await client.me()).activeOrganization).toBeNull();
      const before = await client.fetch(server.projectsUrl);
      expect(before.status).toBe(403);
      expect(((await before.json()) as { code: string }).code).toBe("NO_ACTIVE_ORGANIZATION");

      const activated = await client.organizations.activate(organization.id);
      expect(activated.activeOrganization).toMatchObject({ id: organization.id, role: "owner" });
      expect((await client.me()).activeOrganization).toMatchObject({ id: organization.id, role: "owner" });
      const after = await client.fetch(server.projectsUrl);
      expect(after.status).toBe(200);
      expect(await after.json()).toEqual({ organizationId: organization.id });
      expect((await client.organizations.list()).items.map((item) => item.organization.id)).toEqual([
        organization.id,
      ]);
    },
  );

  it.each(MODES)(
    "request (%s mode) - POST /organizations/:id/activate through `request` changes the token the next call sends, and is shared as a refresh",
    async (mode) => {
      const { channels } = fakeBrowser(2);
      const shared: unknown[] = [];
      channels[1]?.addEventListener("message", (event) => shared.push(event.data));
      const storage = memoryStorage();
      const server = await startServer();
      const client = await server.signedIn(mode, { storage, channel: channels[0] ?? null });
      const held = storage.get();
      const { organization } = await client.request("POST /organizations", { body: { name: "Acme" } });
      shared.length = 0;

      const answer = await client.request("POST /organizations/:id/activate", {
        params: { id: organization.id },
      });
      expect((await client.request("GET /me", {})).activeOrganization).toMatchObject({ id: organization.id });
      expect(answer.accessTokenExpiresAt).toEqual(expect.any(String));
      await Promise.resolve();
      expect(shared).toEqual([
        expect.objectContaining({
          type: "portcullis:refreshed",
          accessTokenExpiresAt: answer.accessTokenExpiresAt,
        }),
      ]);
      if (mode === "header") {
        // The new access token is kept; the refresh token does not change.
        expect(answer.accessToken).toEqual(expect.any(String));
        expect(storage.get()).toMatchObject({
          accessToken: answer.accessToken,
          refreshToken: held?.refreshToken,
        });
        expect(storage.get()?.accessToken).not.toBe(held?.accessToken);
        expect(shared[0]).toMatchObject({ tokens: { accessToken: answer.accessToken } });
      }
      // A refresh keeps the organization.
      await client.refresh();
      expect((await client.me()).activeOrganization).toMatchObject({ id: organization.id });
    },
  );
});
