import { expect } from "vitest";
import { type AppTests, expectError } from "./fixture.js";
import {
  activate,
  as,
  bootOrganizations,
  bootTeam,
  createOrganization,
  type Member,
  member,
  projects,
  stepUp,
} from "./organization-fixture.js";
import { organizationInvitationTests } from "./organization-invitations.js";
import { organizationMemberTests } from "./organization-members.js";

/** Every route of one organization, as a non-member calls it. */
const ORGANIZATION_ROUTES: [string, string, unknown?][] = [
  ["GET", ""],
  ["PATCH", "", { name: "Taken over" }],
  ["DELETE", ""],
  ["POST", "/activate"],
  ["GET", "/members"],
  ["PATCH", "/members/someone", { role: "member" }],
  ["DELETE", "/members/someone"],
  ["POST", "/invitations", { email: "x@example.test", role: "member" }],
  ["GET", "/invitations"],
  ["DELETE", "/invitations/some-invitation"],
  ["GET", "/roles"],
  ["POST", "/roles", { name: "auditor", permissions: ["project:read"] }],
  ["PATCH", "/roles/auditor", { permissions: ["project:read"] }],
  ["DELETE", "/roles/auditor"],
];

const organizationTests: AppTests = {
  "POST /organizations - the creator is its owner; it is listed and read with the owner's permissions; a taken slug is 409 ORGANIZATION_SLUG_TAKEN, a bad one 400":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const owner = await member(app, "owner@example.test");
      const created = await as(app, owner, "create", "POST", "/organizations", {
        body: { name: "Acme Inc", slug: "acme" },
      });
      expect(created.status).toBe(201);
      const acme = { id: expect.any(String), name: "Acme Inc", slug: "acme", createdAt: expect.any(String) };
      expect(created.body).toMatchObject({ organization: acme, role: "owner" });
      const id = (created.body.organization as { id: string }).id;
      const list = await as(app, owner, "list", "GET", "/organizations");
      expect(list.body).toEqual({ items: [{ organization: created.body.organization, role: "owner" }] });
      const read = await as(app, owner, "read", "GET", `/organizations/${id}`);
      expect(read.body).toMatchObject({ organization: { id, slug: "acme" }, role: "owner" });
      expect(read.body.permissions).toEqual(expect.arrayContaining(["project:delete", "member:invite"]));
      const other = await member(app, "other@example.test");
      expectError(
        await as(app, other, "taken slug", "POST", "/organizations", { body: { name: "A", slug: "acme" } }),
        409,
        "ORGANIZATION_SLUG_TAKEN",
      );
      for (const slug of ["A", "x", "no spaces", "a".repeat(49)])
        expectError(
          await as(app, other, `slug ${slug}`, "POST", "/organizations", { body: { name: "B", slug } }),
          400,
          "VALIDATION_FAILED",
        );
      const generated = await as(app, other, "no slug", "POST", "/organizations", {
        body: { name: "Beta Co" },
      });
      expect(generated.status).toBe(201);
      expect((generated.body.organization as { slug: string }).slug).toMatch(/^[a-z0-9-]{2,48}$/);
    },

  "POST /organizations - 20 concurrent creations with one slug: one 201, the others 409": async (boot) => {
    const app = await bootOrganizations(boot);
    const owners: Member[] = [];
    for (let i = 0; i < 4; i++) owners.push(await member(app, `racer${i}@example.test`));
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        as(app, owners[i % 4] as (typeof owners)[number], `race ${i}`, "POST", "/organizations", {
          body: { name: "Race", slug: "race" },
          record: false,
        }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, ...Array(19).fill(409)]);
  },

  "GET /organizations/:id - a non-member gets 404 ORGANIZATION_NOT_FOUND on every route, as for an organization that does not exist":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const owner = await member(app, "owner@example.test");
      const id = await createOrganization(app, owner, "Secret", "secret");
      const outsider = await member(app, "outsider@example.test");
      const headers = await stepUp(app, outsider);
      for (const [organizationId, whose] of [
        [id, "another's"],
        ["no-such-organization", "a missing"],
      ])
        for (const [method, path, body] of ORGANIZATION_ROUTES)
          expectError(
            await as(
              app,
              outsider,
              `${method} ${path} of ${whose}`,
              method,
              `/organizations/${organizationId}${path}`,
              {
                headers,
                ...(body === undefined ? {} : { body }),
              },
            ),
            404,
            "ORGANIZATION_NOT_FOUND",
          );
    },

  "PATCH /organizations/:id - an admin renames it; a plain member is 403 PERMISSION_DENIED; a slug taken is 409":
    async (boot) => {
      const { app, admin, plain, owner, organizationId } = await bootTeam(boot);
      await createOrganization(app, owner, "Other", "other");
      const path = `/organizations/${organizationId}`;
      expectError(
        await as(app, plain, "member renames", "PATCH", path, { body: { name: "Mine" } }),
        403,
        "PERMISSION_DENIED",
      );
      const renamed = await as(app, admin, "admin renames", "PATCH", path, { body: { name: "Acme GmbH" } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        organization: { name: "Acme GmbH", slug: "acme" },
        role: "admin",
      });
      expectError(
        await as(app, admin, "slug taken", "PATCH", path, { body: { slug: "other" } }),
        409,
        "ORGANIZATION_SLUG_TAKEN",
      );
    },

  "DELETE /organizations/:id - only the owner, with a step-up; afterwards every member gets 404": async (
    boot,
  ) => {
    const { app, admin, owner, organizationId } = await bootTeam(boot);
    const path = `/organizations/${organizationId}`;
    expectError(await as(app, owner, "no step-up", "DELETE", path), 401, "STEP_UP_REQUIRED");
    expectError(
      await as(app, admin, "admin deletes", "DELETE", path, { headers: await stepUp(app, admin) }),
      403,
      "PERMISSION_DENIED",
    );
    const deleted = await as(app, owner, "owner deletes", "DELETE", path, {
      headers: await stepUp(app, owner),
    });
    expect(deleted.status).toBe(200);
    for (const who of [owner, admin])
      expectError(await as(app, who, `${who.email} reads`, "GET", path), 404, "ORGANIZATION_NOT_FOUND");
    expect((await as(app, owner, "list", "GET", "/organizations")).body).toEqual({ items: [] });
  },

  "POST /organizations/:id/activate - /me shows the active organization with role and permissions, also after a refresh":
    async (boot) => {
      const { app, plain, organizationId } = await bootTeam(boot);
      const before = await as(app, plain, "me before", "GET", "/me");
      expect(before.body.activeOrganization).toBeNull();
      const active = await activate(app, plain, organizationId);
      const expected = { id: organizationId, slug: "acme", role: "member", permissions: ["project:read"] };
      expect((await as(app, active, "me active", "GET", "/me")).body.activeOrganization).toEqual(expected);
      const refreshed = await app.call("refresh", "POST", "/api/auth/refresh", {
        bearer: plain.refreshToken,
      });
      expect(refreshed.status).toBe(200);
      const after = await as(
        app,
        { accessToken: String(refreshed.body.accessToken) },
        "me refreshed",
        "GET",
        "/me",
      );
      expect(after.body.activeOrganization).toEqual(expected);
    },

  "requirePermission - 401 without a token, 403 NO_ACTIVE_ORGANIZATION before activating, then the role's permissions":
    async (boot) => {
      const { app, plain, admin, organizationId } = await bootTeam(boot);
      expectError(
        await projects(app, { accessToken: "" }, "anonymous", "GET"),
        401,
        "AUTHENTICATION_REQUIRED",
      );
      expectError(await projects(app, plain, "no active organization", "GET"), 403, "NO_ACTIVE_ORGANIZATION");
      const activePlain = await activate(app, plain, organizationId);
      const read = await projects(app, activePlain, "member reads", "GET");
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ organizationId });
      expectError(await projects(app, activePlain, "member writes", "POST"), 403, "PERMISSION_DENIED");
      const write = await projects(app, await activate(app, admin, organizationId), "admin writes", "POST");
      expect(write.body).toEqual({ organizationId });
    },

  "requirePermission - a demotion and a removal count on the member's next request with the same access token":
    async (boot) => {
      const { app, owner, admin, organizationId } = await bootTeam(boot);
      const active = await activate(app, admin, organizationId);
      expect((await projects(app, active, "admin writes", "POST")).status).toBe(200);
      const demoted = await as(
        app,
        owner,
        "demote",
        "PATCH",
        `/organizations/${organizationId}/members/${admin.user.id}`,
        {
          body: { role: "member" },
        },
      );
      expect(demoted.status).toBe(200);
      expectError(await projects(app, active, "demoted writes", "POST"), 403, "PERMISSION_DENIED");
      expect((await projects(app, active, "demoted reads", "GET")).status).toBe(200);
      const removed = await as(
        app,
        owner,
        "remove",
        "DELETE",
        `/organizations/${organizationId}/members/${admin.user.id}`,
      );
      expect(removed.status).toBe(200);
      expectError(await projects(app, active, "removed reads", "GET"), 403, "PERMISSION_DENIED");
      expect((await as(app, active, "me removed", "GET", "/me")).body.activeOrganization).toBeNull();
    },

  "GET /admin/organizations - the back office lists organizations by name or slug; a plain user is 403":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const owner = await member(app, "owner@example.test");
      await createOrganization(app, owner, "Acme", "acme");
      await createOrganization(app, owner, "Beta", "beta");
      const admin = await member(app, "admin@example.test");
      const headers = await stepUp(app, admin);
      const listed = await as(app, admin, "admin lists", "GET", "/admin/organizations?query=ac", { headers });
      expect(listed.status).toBe(200);
      expect(listed.body.items).toMatchObject([{ slug: "acme", name: "Acme" }]);
      expectError(
        await as(app, owner, "plain lists", "GET", "/admin/organizations", {
          headers: await stepUp(app, owner),
        }),
        403,
        "ADMIN_REQUIRED",
      );
    },

  "DELETE /me - the only owner of an organization with other members is 409 LAST_OWNER; alone, the organization goes with the account":
    async (boot) => {
      const { app, owner, plain, organizationId } = await bootTeam(boot);
      expectError(
        await as(app, owner, "owner deletes account", "DELETE", "/me", { headers: await stepUp(app, owner) }),
        409,
        "LAST_OWNER",
      );
      expect((await as(app, plain, "still a member", "GET", `/organizations/${organizationId}`)).status).toBe(
        200,
      );
      const solo = await member(app, "solo@example.test");
      const soloOrganization = await createOrganization(app, solo, "Solo", "solo");
      const gone = await as(app, solo, "solo deletes account", "DELETE", "/me", {
        headers: await stepUp(app, solo),
      });
      expect(gone.status).toBe(200);
      const admin = await member(app, "admin@example.test");
      const listed = await as(app, admin, "admin lists", "GET", "/admin/organizations?query=solo", {
        headers: await stepUp(app, admin),
      });
      expect(listed.body.items).toEqual([]);
      expectError(
        await as(app, owner, "solo organization gone", "GET", `/organizations/${soloOrganization}`),
        404,
        "ORGANIZATION_NOT_FOUND",
      );
    },
};

/** Organizations of the contract: the organization itself, its members and roles, invitations, host checks. */
export const organizationsTests: AppTests = {
  ...organizationTests,
  ...organizationMemberTests,
  ...organizationInvitationTests,
};
