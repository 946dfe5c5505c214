import { expect } from "vitest";
import { type AppTests, expectError, PASSWORD } from "./fixture.js";
import {
  acmeOwner,
  as,
  bootOrganizations,
  bootTeam,
  createOrganization,
  invitationToken,
  invite,
  member,
} from "./organization-fixture.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Invitations: sent by email, accepted once by the invited verified address, replaced, declined, revoked, expired. */
export const organizationInvitationTests: AppTests = {
  "POST /organizations/:id/invitations - an email with a link; the invited verified address accepts once and is listed as a member":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const { owner, organizationId } = await acmeOwner(app);
      const invited = await invite(app, owner, organizationId, "New.Person@Example.test", "member");
      expect(invited.status).toBe(201);
      expect(invited.body).toMatchObject({
        invitation: {
          id: expect.any(String),
          email: "new.person@example.test",
          role: "member",
          expiresAt: expect.any(String),
        },
      });
      await app.auth.idle();
      const token = invitationToken(app, "new.person@example.test");
      const newcomer = await member(app, "new.person@example.test");
      const mine = await as(app, newcomer, "my invitations", "GET", "/invitations");
      expect(mine.body.items).toMatchObject([
        { organization: { id: organizationId, slug: "acme" }, role: "member" },
      ]);
      const accepted = await as(app, newcomer, "accept", "POST", "/invitations/accept", { body: { token } });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ organization: { id: organizationId }, role: "member" });
      expectError(
        await as(app, newcomer, "accept again", "POST", "/invitations/accept", { body: { token } }),
        400,
        "INVITATION_INVALID",
      );
      expect((await as(app, newcomer, "my invitations after", "GET", "/invitations")).body.items).toEqual([]);
      const read = await as(app, newcomer, "member reads", "GET", `/organizations/${organizationId}`);
      expect(read.body).toMatchObject({ role: "member", permissions: ["project:read"] });
    },

  "POST /invitations/accept - another address is 403 INVITATION_EMAIL_MISMATCH, an unverified one 403 EMAIL_NOT_VERIFIED; the invitation stays usable":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const { owner, organizationId } = await acmeOwner(app);
      expect((await invite(app, owner, organizationId, "invitee@example.test", "member")).status).toBe(201);
      await app.auth.idle();
      const token = invitationToken(app, "invitee@example.test");
      const stranger = await member(app, "stranger@example.test");
      expectError(
        await as(app, stranger, "stranger accepts", "POST", "/invitations/accept", { body: { token } }),
        403,
        "INVITATION_EMAIL_MISMATCH",
      );
      const unverified = await member(app, "invitee@example.test", false);
      expectError(
        await as(app, unverified, "unverified accepts", "POST", "/invitations/accept", { body: { token } }),
        403,
        "EMAIL_NOT_VERIFIED",
      );
      await app.auth.host.markEmailVerified({}, unverified.user.id);
      expect(
        (await as(app, unverified, "verified accepts", "POST", "/invitations/accept", { body: { token } }))
          .status,
      ).toBe(200);
      expectError(
        await as(app, owner, "no token", "POST", "/invitations/accept", { body: {} }),
        400,
        "VALIDATION_FAILED",
      );
    },

  "POST /organizations/:id/invitations - a newer invitation replaces the older; declined, revoked and expired ones are 400 INVITATION_INVALID":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const { owner, organizationId } = await acmeOwner(app);
      const invitee = await member(app, "invitee@example.test");
      const send = async () => {
        await app.elapse(61_000);
        expect((await invite(app, owner, organizationId, invitee.email, "member")).status).toBe(201);
        await app.auth.idle();
        return invitationToken(app, invitee.email);
      };
      const accept = (token: string, label: string) =>
        as(app, invitee, label, "POST", "/invitations/accept", { body: { token } });
      const older = await send();
      const newer = await send();
      expect(older).not.toBe(newer);
      expectError(await accept(older, "replaced"), 400, "INVITATION_INVALID");
      expect(
        (await as(app, invitee, "decline", "POST", "/invitations/decline", { body: { token: newer } }))
          .status,
      ).toBe(200);
      expectError(await accept(newer, "declined"), 400, "INVITATION_INVALID");
      const revokedToken = await send();
      const pending = await as(app, owner, "pending", "GET", `/organizations/${organizationId}/invitations`);
      const [invitation] = pending.body.items as { id: string; email: string }[];
      expect(invitation).toMatchObject({ email: invitee.email });
      const revoked = await as(
        app,
        owner,
        "revoke",
        "DELETE",
        `/organizations/${organizationId}/invitations/${invitation?.id}`,
      );
      expect(revoked.status).toBe(200);
      expectError(await accept(revokedToken, "revoked"), 400, "INVITATION_INVALID");
      const late = await send();
      await app.elapse(7 * DAY_MS + 1000);
      const again = await app.call("sign in again", "POST", "/api/auth/login", {
        body: { email: invitee.email, password: PASSWORD },
      });
      const later = { accessToken: String(again.body.accessToken) };
      for (const [token, label] of [
        [late, "expired"],
        ["not-a-real-token-at-all", "garbage"],
      ])
        expectError(
          await as(app, later, label as string, "POST", "/invitations/accept", { body: { token } }),
          400,
          "INVITATION_INVALID",
        );
    },

  "POST /organizations/:id/invitations - a member's address is 409 ALREADY_MEMBER; a plain member may not invite; a role above the inviter's is 403":
    async (boot) => {
      const { app, owner, admin, plain, organizationId } = await bootTeam(boot);
      for (const [inviter, email, role, status, code] of [
        [owner, plain.email, "member", 409, "ALREADY_MEMBER"],
        [plain, "x@example.test", "member", 403, "PERMISSION_DENIED"],
        [admin, "y@example.test", "owner", 403, "PERMISSION_DENIED"],
        [owner, "not an address", "member", 400, "VALIDATION_FAILED"],
        [owner, "z@example.test", "no-such-role", 400, "VALIDATION_FAILED"],
      ] as const) {
        expectError(await invite(app, inviter, organizationId, email, role), status, code);
      }
    },

  "POST /organizations/:id/invitations - a second invitation to one address within the cooldown is 429 EMAIL_COOLDOWN_ACTIVE; another organization is not held up":
    async (boot) => {
      const app = await bootOrganizations(boot);
      const owner = await member(app, "owner@example.test");
      const first = await createOrganization(app, owner, "Acme", "acme");
      const second = await createOrganization(app, owner, "Beta", "beta");
      expect((await invite(app, owner, first, "invitee@example.test", "member")).status).toBe(201);
      expectError(
        await invite(app, owner, first, "invitee@example.test", "member"),
        429,
        "EMAIL_COOLDOWN_ACTIVE",
      );
      expect((await invite(app, owner, second, "invitee@example.test", "member")).status).toBe(201);
      await app.elapse(61_000);
      expect((await invite(app, owner, first, "invitee@example.test", "member")).status).toBe(201);
    },

  "POST /invitations/accept - 10 concurrent accepts of one invitation give one membership": async (boot) => {
    const app = await bootOrganizations(boot);
    const { owner, organizationId } = await acmeOwner(app);
    const invitee = await member(app, "invitee@example.test");
    expect((await invite(app, owner, organizationId, invitee.email, "member")).status).toBe(201);
    await app.auth.idle();
    const token = invitationToken(app, invitee.email);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        as(app, invitee, `accept ${i}`, "POST", "/invitations/accept", { body: { token }, record: false }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200))
      expect(["INVITATION_INVALID", "ALREADY_MEMBER"]).toContain(reply.headers.get("auth-error-code"));
    const members = await as(app, owner, "members", "GET", `/organizations/${organizationId}/members`);
    expect((members.body.items as unknown[]).length).toBe(2);
  },
};
