import { expect } from "vitest";
import { type App, type AppTests, expectError } from "./fixture.js";
import { as, bootTeam, join, type Member, member } from "./organization-fixture.js";

/** `who` gives `target` the role `role` in `organizationId`; the reply. */
const setRole = (
  app: App,
  who: Member,
  organizationId: string,
  target: Member,
  role: string,
  label?: string,
  record = true,
) =>
  as(
    app,
    who,
    label ?? `${who.email} makes ${target.email} ${role}`,
    "PATCH",
    `/organizations/${organizationId}/members/${target.user.id}`,
    {
      body: { role },
      record,
    },
  );

/** The members' roles, by address. */
async function rolesOf(app: App, who: Member, organizationId: string): Promise<Record<string, string>> {
  const reply = await as(app, who, "members", "GET", `/organizations/${organizationId}/members`, {
    record: false,
  });
  expect(reply.status, reply.text).toBe(200);
  const items = reply.body.items as { email: string; role: string }[];
  return Object.fromEntries(items.map((item) => [item.email, item.role]));
}

/** Members, their roles, custom roles and the rules that stop a member from granting more than it has. */
export const organizationMemberTests: AppTests = {
  "GET /organizations/:id/members - every member with address, name, role and join time, in pages": async (
    boot,
  ) => {
    const { app, owner, organizationId } = await bootTeam(boot);
    const all = await as(app, owner, "members", "GET", `/organizations/${organizationId}/members`);
    expect(all.body).toMatchObject({ nextCursor: null });
    expect(all.body.items).toMatchObject([
      { userId: owner.user.id, email: "owner@example.test", role: "owner", joinedAt: expect.any(String) },
      { email: "manager@example.test", role: "admin" },
      { email: "plain@example.test", role: "member" },
    ]);
    const first = await as(app, owner, "page 1", "GET", `/organizations/${organizationId}/members?limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await as(
      app,
      owner,
      "page 2",
      "GET",
      `/organizations/${organizationId}/members?limit=2&cursor=${encodeURIComponent(String(first.body.nextCursor))}`,
    );
    expect(second.body).toMatchObject({ items: [{ email: "plain@example.test" }], nextCursor: null });
    expectError(
      await as(app, owner, "limit 0", "GET", `/organizations/${organizationId}/members?limit=0`),
      400,
      "VALIDATION_FAILED",
    );
  },

  "PATCH /organizations/:id/members/:userId - a plain member is 403; an admin cannot make or demote an owner; an owner can":
    async (boot) => {
      const { app, owner, admin, plain, organizationId } = await bootTeam(boot);
      expectError(await setRole(app, plain, organizationId, admin, "member"), 403, "PERMISSION_DENIED");
      expectError(await setRole(app, admin, organizationId, plain, "owner"), 403, "PERMISSION_DENIED");
      expectError(await setRole(app, admin, organizationId, owner, "member"), 403, "PERMISSION_DENIED");
      expectError(await setRole(app, admin, organizationId, admin, "owner"), 403, "PERMISSION_DENIED");
      expectError(await setRole(app, owner, organizationId, plain, "no-such-role"), 400, "VALIDATION_FAILED");
      expect((await setRole(app, owner, organizationId, plain, "owner")).status).toBe(200);
      expect(await rolesOf(app, owner, organizationId)).toEqual({
        "owner@example.test": "owner",
        "manager@example.test": "admin",
        "plain@example.test": "owner",
      });
    },

  "PATCH /organizations/:id/members/:userId - the last owner cannot be demoted, removed or leave: 409 LAST_OWNER":
    async (boot) => {
      const { app, owner, organizationId } = await bootTeam(boot);
      expectError(
        await setRole(app, owner, organizationId, owner, "admin", "last owner demotes self"),
        409,
        "LAST_OWNER",
      );
      expectError(
        await as(
          app,
          owner,
          "last owner leaves",
          "DELETE",
          `/organizations/${organizationId}/members/${owner.user.id}`,
        ),
        409,
        "LAST_OWNER",
      );
      expect((await rolesOf(app, owner, organizationId))["owner@example.test"]).toBe("owner");
    },

  "PATCH /organizations/:id/members/:userId - concurrent demotions of the last two owners leave exactly one owner; the others are 409 LAST_OWNER or 403":
    async (boot) => {
      const { app, owner, admin, organizationId } = await bootTeam(boot);
      expect((await setRole(app, owner, organizationId, admin, "owner")).status).toBe(200);
      const replies = await Promise.all([
        setRole(app, owner, organizationId, admin, "member", "demote the other", false),
        setRole(app, admin, organizationId, owner, "member", "demote the first", false),
        setRole(app, owner, organizationId, owner, "member", "demote self", false),
        setRole(app, admin, organizationId, admin, "member", "demote self too", false),
      ]);
      // Two demotions of the same owner may both answer 200 (the second changes a member): what
      // must hold is the organization's last owner.
      expect(replies.filter((reply) => reply.status === 200).length).toBeGreaterThanOrEqual(1);
      for (const reply of replies.filter((r) => r.status !== 200)) expect([409, 403]).toContain(reply.status);
      const roles = await rolesOf(app, owner, organizationId);
      const owners = Object.values(roles).filter((role) => role === "owner");
      expect(owners).toHaveLength(1);
    },

  "DELETE /organizations/:id/members/:userId - a member leaves, an admin removes a member; a plain member removes nobody":
    async (boot) => {
      const { app, owner, admin, plain, organizationId } = await bootTeam(boot);
      const path = (target: Member) => `/organizations/${organizationId}/members/${target.user.id}`;
      expectError(
        await as(app, plain, "member removes admin", "DELETE", path(admin)),
        403,
        "PERMISSION_DENIED",
      );
      expectError(
        await as(app, admin, "admin removes owner", "DELETE", path(owner)),
        403,
        "PERMISSION_DENIED",
      );
      expect((await as(app, admin, "admin removes member", "DELETE", path(plain))).status).toBe(200);
      expectError(
        await as(app, plain, "removed reads", "GET", `/organizations/${organizationId}`),
        404,
        "ORGANIZATION_NOT_FOUND",
      );
      expect((await as(app, admin, "admin leaves", "DELETE", path(admin))).status).toBe(200);
      expect(await rolesOf(app, owner, organizationId)).toEqual({ "owner@example.test": "owner" });
    },

  "POST /organizations/:id/roles - a custom role from the declared permissions; nobody grants what they lack; a role in use is 409 ROLE_IN_USE":
    async (boot) => {
      const { app, owner, admin, plain, organizationId } = await bootTeam(boot);
      const roles = `/organizations/${organizationId}/roles`;
      expectError(
        await as(app, plain, "member creates role", "POST", roles, {
          body: { name: "writer", permissions: ["project:read"] },
        }),
        403,
        "PERMISSION_DENIED",
      );
      for (const body of [
        { name: "bad", permissions: ["project:fly"] },
        { name: "owner", permissions: ["project:read"] },
        { name: "Not A Name", permissions: ["project:read"] },
      ])
        expectError(
          await as(app, owner, `role ${body.name}`, "POST", roles, { body }),
          400,
          "VALIDATION_FAILED",
        );
      const created = await as(app, admin, "admin creates writer", "POST", roles, {
        body: { name: "writer", permissions: ["project:read", "project:write"] },
      });
      expect(created.status).toBe(201);
      const listed = await as(app, plain, "roles listed", "GET", roles);
      expect(listed.status).toBe(403);
      const read = await as(app, owner, "roles read", "GET", roles);
      expect(read.body.items).toEqual(
        expect.arrayContaining([
          { name: "writer", permissions: ["project:read", "project:write"], builtIn: false },
          expect.objectContaining({ name: "owner", builtIn: true }),
        ]),
      );
      expect((await setRole(app, admin, organizationId, plain, "writer")).status).toBe(200);
      expectError(
        await as(app, owner, "delete writer in use", "DELETE", `${roles}/writer`),
        409,
        "ROLE_IN_USE",
      );
      expect((await setRole(app, admin, organizationId, plain, "member")).status).toBe(200);
      expect((await as(app, owner, "delete writer", "DELETE", `${roles}/writer`)).status).toBe(200);
      expectError(await setRole(app, admin, organizationId, plain, "writer"), 400, "VALIDATION_FAILED");
    },

  "PATCH /organizations/:id/members/:userId - a member with role:manage and member:update-role but not project:write cannot grant a role that has it":
    async (boot) => {
      const { app, owner, plain, organizationId } = await bootTeam(boot);
      const roles = `/organizations/${organizationId}/roles`;
      const body = { name: "people", permissions: ["project:read", "member:update-role", "role:manage"] };
      expect((await as(app, owner, "people role", "POST", roles, { body })).status).toBe(201);
      const writer = { name: "writer", permissions: ["project:read", "project:write"] };
      expect((await as(app, owner, "writer role", "POST", roles, { body: writer })).status).toBe(201);
      const helper = await member(app, "helper@example.test");
      await join(app, owner, organizationId, helper, "people");
      expectError(await setRole(app, helper, organizationId, plain, "writer"), 403, "PERMISSION_DENIED");
      expectError(await setRole(app, helper, organizationId, plain, "admin"), 403, "PERMISSION_DENIED");
      expectError(
        await as(app, helper, "widen own role", "PATCH", `${roles}/people`, {
          body: { permissions: [...body.permissions, "project:write"] },
        }),
        403,
        "PERMISSION_DENIED",
      );
      expect((await setRole(app, helper, organizationId, plain, "people")).status).toBe(200);
    },
};
