import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { type Counting, countedSqlite } from "./test-databases.js";
import { countedHandler, countedPostgresForFile, registerThrough } from "./test-servers.js";

// The authenticated path on SQL stores through the core's HTTP handler: GET /me reads the
// allowlist entry and the user in one statement, and revocation still holds on the very next
// request (logout, ending the session, a deleted account, a changed record).

function suite(name: string, open: () => Promise<{ db: AnyKysely; counting: Counting }>) {
  describe(`authenticated path on ${name}`, () => {
    const app = countedHandler(open, "authenticated-path-secret-yAEoUyHUyQNxa_NIrlTvpITTjFX", {
      organizations: {
        permissions: ["project:read", "project:write"],
        memberPermissions: ["project:read"],
      },
    });
    const { send } = app;

    /** A new account, signed in: its id, address and access token. */
    const signedIn = async () => {
      const credentials = await registerThrough(app.handler, "user");
      const login = await send("POST", "/login", { body: credentials });
      expect(login.status).toBe(200);
      return {
        id: login.body.user.id as string,
        email: credentials.email,
        token: login.body.accessToken as string,
      };
    };

    /** GET /me with `token`, and the statements it sent. */
    const me = async (token: string) => {
      const { answer, statements } = await app.count(() => send("GET", "/me", { token }));
      return { ...answer, statements };
    };

    /** A signed-in user owning a new organization made active: ids and the token naming it. */
    const activeMember = async () => {
      const user = await signedIn();
      const created = await send("POST", "/organizations", {
        token: user.token,
        body: { name: "Acme", slug: `acme-${user.email.split("@")[0]}` },
      });
      expect(created.status).toBe(201);
      const organizationId = created.body.organization.id as string;
      const activated = await send("POST", `/organizations/${organizationId}/activate`, {
        token: user.token,
      });
      expect(activated.status).toBe(200);
      return { ...user, organizationId, token: activated.body.accessToken as string };
    };

    /** A host route's permission check (`handler.authenticate(request, permission)`) with `token`, and its statements. */
    const check = async (token: string, permission: string) => {
      const { answer: result, statements } = await app.count(() =>
        app.handler.authenticate(
          {
            method: "GET",
            url: "/api/projects",
            headers: { host: "localhost:3000", authorization: `Bearer ${token}` },
            remoteAddress: "127.0.0.1",
          },
          permission,
        ),
      );
      const status = result.response?.status ?? 200;
      const body = result.response?.body ? JSON.parse(String(result.response.body)) : null;
      return { status, body, organization: result.organization, statements };
    };

    it("authenticate(request, permission) - one statement: the allowlist entry, the user and the membership", async () => {
      const member = await activeMember();
      const answer = await check(member.token, "project:write");
      expect(answer.status).toBe(200);
      expect(answer.organization).toMatchObject({ organizationId: member.organizationId, role: "owner" });
      expect(answer.statements).toHaveLength(1);
    });

    it("authenticate(request, permission) - a role changed or a membership removed counts on the very next request", async () => {
      const member = await activeMember();
      expect((await check(member.token, "project:write")).status).toBe(200);
      await sql`update portcullis_memberships set role = ${"member"} where user_id = ${member.id}`.execute(
        app.db,
      );
      const demoted = await check(member.token, "project:write");
      expect(demoted.status).toBe(403);
      expect(demoted.body.code).toBe("PERMISSION_DENIED");
      expect((await check(member.token, "project:read")).organization).toMatchObject({ role: "member" });
      await sql`delete from portcullis_memberships where user_id = ${member.id}`.execute(app.db);
      const removed = await check(member.token, "project:read");
      expect(removed.status).toBe(403);
      expect(removed.body.code).toBe("PERMISSION_DENIED");
      expect(removed.statements).toHaveLength(1);
    });

    it("GET /me - with an active organization: the joint read with the membership, then the organization", async () => {
      const member = await activeMember();
      const answer = await me(member.token);
      expect(answer.status).toBe(200);
      expect(answer.body.activeOrganization).toMatchObject({ id: member.organizationId, role: "owner" });
      expect(answer.statements).toHaveLength(2);
    });

    it("GET /me - one statement: the allowlist entry and the user read together", async () => {
      const user = await signedIn();
      const answer = await me(user.token);
      expect(answer.status).toBe(200);
      expect(answer.body.user ?? answer.body).toMatchObject({ id: user.id, email: user.email });
      expect(answer.statements).toHaveLength(1);
      expect(answer.statements[0]).toMatch(/join/i);
    });

    it.each([
      ["logout", "POST", "/logout"],
      ["DELETE /sessions (every session ended)", "DELETE", "/sessions"],
    ])("GET /me - after %s the token is refused on the very next request", async (_ending, method, path) => {
      const user = await signedIn();
      expect((await me(user.token)).status).toBe(200);
      expect((await send(method, path, { token: user.token })).status).toBeLessThan(300);
      const answer = await me(user.token);
      expect(answer.status).toBe(401);
      expect(answer.body.code).toBe("ACCESS_TOKEN_INVALID");
    });

    it("GET /me - a changed record shows on the next request; a removed user row is USER_NOT_FOUND", async () => {
      const user = await signedIn();
      await sql`update portcullis_users set name = ${"Grace"} where id = ${user.id}`.execute(app.db);
      const renamed = await me(user.token);
      expect(renamed.status).toBe(200);
      expect(renamed.body.user?.name ?? renamed.body.name).toBe("Grace");
      await sql`delete from portcullis_users where id = ${user.id}`.execute(app.db);
      const gone = await me(user.token);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe("USER_NOT_FOUND");
      expect(gone.statements).toHaveLength(1);
    });
  });
}

suite("sqlite", async () => countedSqlite());
suite("postgres", countedPostgresForFile());
