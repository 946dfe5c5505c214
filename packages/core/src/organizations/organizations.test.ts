import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { Call } from "../model.js";
import { code, createTestAuth, PASSWORD, signIn } from "../test-support.js";

/** The permissions the tests' host declares, and what plain members get. */
const PERMISSIONS = ["project:read", "project:write", "project:delete"];

/** An auth with organizations on (memory stores), its emails and events. */
function organizationAuth(options: Parameters<typeof createTestAuth>[0] = {}) {
  const events: SecurityEvent[] = [];
  const test = createTestAuth({
    organizations: { permissions: PERMISSIONS, memberPermissions: ["project:read"] },
    email: { loginAlerts: false },
    onEvent: (event) => events.push(event),
    ...options,
  });
  const { auth, sent } = test;

  /** A verified account, signed in: its id, principal and tokens. */
  async function user(email: string, { verified = true } = {}) {
    const created = await auth.host.createUser({}, { email, password: PASSWORD, emailVerified: verified });
    const login = await signIn(auth, { email, password: PASSWORD });
    const principal = await auth.authenticate({ token: login.accessToken });
    const call: Call = { principal };
    return { id: created.id, email, principal, call, login };
  }

  /** The token of the latest invitation email to `email`. */
  function invitationToken(email: string): string {
    const message = sent.findLast(
      (candidate) => candidate.kind === "organization-invitation" && candidate.to === email,
    );
    const token = message?.text.match(/token=([A-Za-z0-9_-]+)/)?.[1];
    if (token === undefined) throw new Error(`no invitation to ${email}`);
    return token;
  }

  /** `member` joins the organization with `role`, invited by `by`. */
  async function join(by: Call, organizationId: string, member: { call: Call; email: string }, role: string) {
    await auth.organizations.invite(by, { organizationId, body: { email: member.email, role } });
    return auth.organizations.acceptInvitation(member.call, { token: invitationToken(member.email) });
  }

  /** `by` gives the member `userId` the role `role`. */
  function setRole(by: Call, organizationId: string, userId: string, role: string) {
    return auth.organizations.changeMemberRole(by, { organizationId, userId, body: { role } });
  }

  /** An organization owned by a new user, with an admin and a member. */
  async function team() {
    const owner = await user("owner@example.test");
    const admin = await user("admin@example.test");
    const member = await user("member@example.test");
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme Inc." });
    await join(owner.call, organization.id, admin, "admin");
    await join(owner.call, organization.id, member, "member");
    return { owner, admin, member, organization };
  }

  return { ...test, events, user, invitationToken, join, setRole, team };
}

describe("organizationAuth", () => {
  it("team - the owner, an admin and a member, each with their role", async () => {
    const { auth, team } = organizationAuth();
    const { owner, admin, member, organization } = await team();
    for (const [who, role] of [
      [owner, "owner"],
      [admin, "admin"],
      [member, "member"],
    ] as const) {
      expect((await auth.organizations.get(who.call, organization.id)).role).toBe(role);
    }
  });
});

describe("organizations", () => {
  it("get - a non-member and a missing organization get the same answer: ORGANIZATION_NOT_FOUND", async () => {
    const { auth, team, user } = organizationAuth();
    const { organization } = await team();
    const stranger = await user("stranger@example.test");
    for (const id of [organization.id, "no-such-organization", "../../etc"]) {
      expect(await code(auth.organizations.get(stranger.call, id))).toBe("ORGANIZATION_NOT_FOUND");
      expect(await code(auth.organizations.listMembers(stranger.call, { organizationId: id }))).toBe(
        "ORGANIZATION_NOT_FOUND",
      );
      expect(
        await code(
          auth.organizations.invite(stranger.call, {
            organizationId: id,
            body: { email: "x@example.test", role: "member" },
          }),
        ),
      ).toBe("ORGANIZATION_NOT_FOUND");
    }
  });

  it("update - a member without organization:update is refused: PERMISSION_DENIED; an admin may", async () => {
    const { auth, team } = organizationAuth();
    const { admin, member, organization } = await team();
    const patch = { organizationId: organization.id, body: { name: "Renamed" } };
    expect(await code(auth.organizations.update(member.call, patch))).toBe("PERMISSION_DENIED");
    expect((await auth.organizations.update(admin.call, patch)).organization.name).toBe("Renamed");
  });

  it("create - a given slug that is taken: ORGANIZATION_SLUG_TAKEN; a made-up one gets a suffix", async () => {
    const { auth, user } = organizationAuth();
    const ada = await user("ada@example.test");
    const first = await auth.organizations.create(ada.call, { name: "Ünïcode Ltd" });
    expect(first.organization.slug).toBe("unicode-ltd");
    expect(await code(auth.organizations.create(ada.call, { name: "Other", slug: "unicode-ltd" }))).toBe(
      "ORGANIZATION_SLUG_TAKEN",
    );
    const second = await auth.organizations.create(ada.call, { name: "Unicode LTD" });
    expect(second.organization.slug).toMatch(/^unicode-ltd-[a-z0-9]{6}$/);
  });

  it("changeMemberRole - an admin cannot make an owner nor demote one: PERMISSION_DENIED", async () => {
    const { auth, team, setRole } = organizationAuth();
    const { owner, admin, member, organization } = await team();
    const organizationId = organization.id;
    expect(await code(setRole(admin.call, organizationId, member.id, "owner"))).toBe("PERMISSION_DENIED");
    expect(await code(setRole(admin.call, organizationId, owner.id, "member"))).toBe("PERMISSION_DENIED");
    expect(
      await code(auth.organizations.removeMember(admin.call, { organizationId, userId: owner.id })),
    ).toBe("PERMISSION_DENIED");
    await setRole(owner.call, organizationId, member.id, "owner");
    expect((await auth.organizations.get(member.call, organizationId)).role).toBe("owner");
  });

  it("changeMemberRole - nobody grants a role with a permission they lack: PERMISSION_DENIED", async () => {
    const { auth, team, user, join, setRole } = organizationAuth();
    const { owner, member, organization } = await team();
    const organizationId = organization.id;
    // A custom role that may change roles but not delete projects.
    await auth.organizations.createRole(owner.call, {
      organizationId,
      body: { name: "lead", permissions: ["member:update-role", "project:read", "project:write"] },
    });
    const lead = await user("lead@example.test");
    await join(owner.call, organizationId, lead, "lead");
    expect(await code(setRole(lead.call, organizationId, member.id, "admin"))).toBe("PERMISSION_DENIED");
    expect(
      await code(
        auth.organizations.createRole(lead.call, {
          organizationId,
          body: { name: "x", permissions: ["project:delete"] },
        }),
      ),
    ).toBe("PERMISSION_DENIED");
    await setRole(lead.call, organizationId, member.id, "lead");
    expect((await auth.organizations.get(member.call, organizationId)).permissions).toContain(
      "project:write",
    );
  });

  it("changeMemberRole - the last owner cannot be demoted or leave: LAST_OWNER", async () => {
    const { auth, team, setRole } = organizationAuth();
    const { owner, organization } = await team();
    const organizationId = organization.id;
    expect(await code(setRole(owner.call, organizationId, owner.id, "admin"))).toBe("LAST_OWNER");
    expect(
      await code(auth.organizations.removeMember(owner.call, { organizationId, userId: owner.id })),
    ).toBe("LAST_OWNER");
  });

  it("require - a removed member is refused on the next call with the same principal and token", async () => {
    const { auth, team } = organizationAuth();
    const { owner, member, organization } = await team();
    const activated = await auth.organizations.activate(member.call, organization.id);
    const principal = await auth.authenticate({ token: activated.accessToken });
    expect(principal.activeOrganizationId).toBe(organization.id);
    expect(await auth.organizations.require(principal, "project:read")).toMatchObject({
      organizationId: organization.id,
      role: "member",
    });
    expect(await auth.organizations.can(principal, "project:write")).toBe(false);
    await auth.organizations.removeMember(owner.call, { organizationId: organization.id, userId: member.id });
    expect(await code(auth.organizations.require(principal, "project:read"))).toBe("PERMISSION_DENIED");
    const again = await auth.authenticate({ token: activated.accessToken });
    expect(await auth.organizations.can(again, "project:read")).toBe(false);
  });

  it("require - no principal: AUTHENTICATION_REQUIRED; no active organization: NO_ACTIVE_ORGANIZATION; unknown permission: PERMISSION_DENIED", async () => {
    const { auth, team } = organizationAuth();
    const { owner, organization } = await team();
    expect(await code(auth.organizations.require(undefined, "project:read"))).toBe("AUTHENTICATION_REQUIRED");
    expect(await code(auth.organizations.require(owner.principal, "project:read"))).toBe(
      "NO_ACTIVE_ORGANIZATION",
    );
    const activated = await auth.organizations.activate(owner.call, organization.id);
    const principal = await auth.authenticate({ token: activated.accessToken });
    expect(await code(auth.organizations.require(principal, "no:such"))).toBe("PERMISSION_DENIED");
    expect(await auth.organizations.can(principal, "member:invite")).toBe(true);
  });

  it("can - a failing store rejects (DATABASE_FAILURE), never true", async () => {
    const { auth, stores, team } = organizationAuth();
    const { owner, organization } = await team();
    const principal = await auth.authenticate({
      token: (await auth.organizations.activate(owner.call, organization.id)).accessToken,
    });
    stores.organizations.findMembership = async () => {
      throw new Error("database down");
    };
    expect(await code(auth.organizations.can(principal, "project:read"))).toBe("DATABASE_FAILURE");
  });

  it("activate - /me shows the active organization, refresh keeps it, and drops it once the membership is gone", async () => {
    const { auth, team } = organizationAuth();
    const { owner, member, organization } = await team();
    const activated = await auth.organizations.activate(member.call, organization.id);
    const principal = await auth.authenticate({ token: activated.accessToken });
    expect((await auth.getCurrentUser({ principal })).activeOrganization).toEqual({
      id: organization.id,
      slug: organization.slug,
      role: "member",
      permissions: ["project:read"],
    });
    const refreshed = await auth.refresh({ token: member.login.refreshToken });
    expect((await auth.authenticate({ token: refreshed.accessToken })).activeOrganizationId).toBe(
      organization.id,
    );
    await auth.organizations.removeMember(owner.call, { organizationId: organization.id, userId: member.id });
    expect((await auth.getCurrentUser({ principal })).activeOrganization).toBeNull();
    const after = await auth.refresh({ token: refreshed.refreshToken });
    expect((await auth.authenticate({ token: after.accessToken })).activeOrganizationId).toBeNull();
  });

  it("acceptInvitation - only the invited, verified address; once: INVITATION_EMAIL_MISMATCH, EMAIL_NOT_VERIFIED, INVITATION_INVALID", async () => {
    const { auth, user, invitationToken } = organizationAuth();
    const owner = await user("owner@example.test");
    const other = await user("other@example.test");
    const unverified = await user("new@example.test", { verified: false });
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme" });
    await auth.organizations.invite(owner.call, {
      organizationId: organization.id,
      body: { email: "new@example.test", role: "member" },
    });
    const token = invitationToken("new@example.test");
    expect(await code(auth.organizations.acceptInvitation(other.call, { token }))).toBe(
      "INVITATION_EMAIL_MISMATCH",
    );
    expect(await code(auth.organizations.acceptInvitation(unverified.call, { token }))).toBe(
      "EMAIL_NOT_VERIFIED",
    );
    await auth.host.markEmailVerified({}, unverified.id);
    expect(await auth.organizations.acceptInvitation(unverified.call, { token })).toMatchObject({
      role: "member",
    });
    expect(await code(auth.organizations.acceptInvitation(unverified.call, { token }))).toBe(
      "INVITATION_INVALID",
    );
  });

  it("invite - an address already a member: ALREADY_MEMBER; the cooldown runs per address and organization", async () => {
    const { auth, team } = organizationAuth();
    const { owner, member, organization } = await team();
    const organizationId = organization.id;
    expect(
      await code(
        auth.organizations.invite(owner.call, {
          organizationId,
          body: { email: member.email, role: "member" },
        }),
      ),
    ).toBe("ALREADY_MEMBER");
    const body = { email: "guest@example.test", role: "member" };
    await auth.organizations.invite(owner.call, { organizationId, body });
    expect(await code(auth.organizations.invite(owner.call, { organizationId, body }))).toBe(
      "EMAIL_COOLDOWN_ACTIVE",
    );
    const other = await auth.organizations.create(owner.call, { name: "Other" });
    await auth.organizations.invite(owner.call, { organizationId: other.organization.id, body });
  });

  it("account.delete - the only owner of an organization with other members: LAST_OWNER, nothing deleted", async () => {
    const { auth, team, stores } = organizationAuth();
    const { owner } = await team();
    const stepped = await auth.stepUp(owner.call, { password: PASSWORD });
    if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
    const call = { ...owner.call, stepUpToken: stepped.stepUpToken };
    expect(await code(auth.account.delete(call))).toBe("LAST_OWNER");
    expect(await stores.users.findById(owner.id)).not.toBeNull();
  });

  it("delete - owners only, with a step-up; an admin: PERMISSION_DENIED; every change is an event naming the actor", async () => {
    const { auth, team, events } = organizationAuth();
    const { owner, admin, organization } = await team();
    const stepUp = async (who: typeof owner) => {
      const stepped = await auth.stepUp(who.call, { password: PASSWORD });
      if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
      return { ...who.call, stepUpToken: stepped.stepUpToken };
    };
    expect(await code(auth.organizations.delete(await stepUp(admin), organization.id))).toBe(
      "PERMISSION_DENIED",
    );
    expect(await code(auth.organizations.delete(owner.call, organization.id))).toBe("STEP_UP_REQUIRED");
    await auth.organizations.delete(await stepUp(owner), organization.id);
    expect(await code(auth.organizations.get(admin.call, organization.id))).toBe("ORGANIZATION_NOT_FOUND");
    expect(
      events.filter((event) => event.organizationId === organization.id).map((e) => [e.type, e.actor]),
    ).toEqual([
      ["organization.created", owner.id],
      ["member.invited", owner.id],
      ["member.joined", admin.id],
      ["member.invited", owner.id],
      ["member.joined", expect.any(String)],
      ["organization.deleted", owner.id],
    ]);
  });

  it("account.delete - the only member's organization goes with the account; the export lists memberships", async () => {
    const { auth, user, stores } = organizationAuth();
    const ada = await user("ada@example.test");
    const { organization } = await auth.organizations.create(ada.call, { name: "Solo" });
    const stepped = await auth.stepUp(ada.call, { password: PASSWORD });
    if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
    const call = { ...ada.call, stepUpToken: stepped.stepUpToken };
    expect((await auth.account.export(call)).memberships).toEqual([
      {
        organization: { id: organization.id, name: "Solo", slug: "solo" },
        role: "owner",
        joinedAt: expect.any(String),
      },
    ]);
    await auth.account.delete(call);
    expect(await stores.organizations.findOrganization(organization.id)).toBeNull();
  });

  it("removeMember - a member leaves with their own id, no permission needed; the owner sees them gone", async () => {
    const { auth, team } = organizationAuth();
    const { owner, member, organization } = await team();
    await auth.organizations.removeMember(member.call, {
      organizationId: organization.id,
      userId: member.id,
    });
    expect(await code(auth.organizations.get(member.call, organization.id))).toBe("ORGANIZATION_NOT_FOUND");
    const { items } = await auth.organizations.listMembers(owner.call, { organizationId: organization.id });
    expect(items.map((item) => item.email).sort()).toEqual(["admin@example.test", "owner@example.test"]);
  });

  it("deleteRole - a role a member holds: ROLE_IN_USE; a built-in one: NOT_FOUND; once unused it goes", async () => {
    const { auth, team, setRole } = organizationAuth();
    const { owner, member, organization } = await team();
    const organizationId = organization.id;
    await auth.organizations.createRole(owner.call, {
      organizationId,
      body: { name: "reader", permissions: ["project:read"] },
    });
    await setRole(owner.call, organizationId, member.id, "reader");
    expect(await code(auth.organizations.deleteRole(owner.call, { organizationId, role: "reader" }))).toBe(
      "ROLE_IN_USE",
    );
    expect(await code(auth.organizations.deleteRole(owner.call, { organizationId, role: "admin" }))).toBe(
      "NOT_FOUND",
    );
    await setRole(owner.call, organizationId, member.id, "member");
    await auth.organizations.deleteRole(owner.call, { organizationId, role: "reader" });
    const { items } = await auth.organizations.listRoles(owner.call, organizationId);
    expect(items.map((role) => role.name)).toEqual(["owner", "admin", "member"]);
  });

  it("declineInvitation - ends the link: accepting it afterwards is INVITATION_INVALID, as a revoked one", async () => {
    const { auth, user, invitationToken } = organizationAuth();
    const owner = await user("owner@example.test");
    const guest = await user("guest@example.test");
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme" });
    const organizationId = organization.id;
    const body = { email: guest.email, role: "member" };
    await auth.organizations.invite(owner.call, { organizationId, body });
    const declined = invitationToken(guest.email);
    await auth.organizations.declineInvitation(guest.call, { token: declined });
    expect(await code(auth.organizations.acceptInvitation(guest.call, { token: declined }))).toBe(
      "INVITATION_INVALID",
    );
    const other = await auth.organizations.create(owner.call, { name: "Other" });
    const { invitation } = await auth.organizations.invite(owner.call, {
      organizationId: other.organization.id,
      body,
    });
    await auth.organizations.revokeInvitation(owner.call, {
      organizationId: other.organization.id,
      invitationId: invitation.id,
    });
    expect(
      await code(auth.organizations.acceptInvitation(guest.call, { token: invitationToken(guest.email) })),
    ).toBe("INVITATION_INVALID");
  });

  it("organizations - off: the methods answer NOT_FOUND, require PERMISSION_DENIED", async () => {
    const { auth } = createTestAuth({ email: { loginAlerts: false } });
    await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD, emailVerified: true });
    const principal = await auth.authenticate({
      token: (await signIn(auth, { email: "ada@example.test", password: PASSWORD })).accessToken,
    });
    expect(await code(auth.organizations.list({ principal }))).toBe("NOT_FOUND");
    expect(await code(auth.organizations.require(principal, "project:read"))).toBe("PERMISSION_DENIED");
  });
});
