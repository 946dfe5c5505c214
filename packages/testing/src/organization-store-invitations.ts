// The OrganizationStore conformance tests of custom roles, invitations and copies;
// organization-store-suite.ts runs them with the others.
import { expect } from "vitest";
import { FAR_FUTURE, type OrganizationContext, raced } from "./organization-store-context.js";
import type { StoreTests } from "./store-fixture.js";
import { concurrently, uniqueId } from "./store-fixture.js";

/** The "roles", "invitations" and "records" groups of the suite. */
export const ORGANIZATION_INVITATION_TESTS: StoreTests<OrganizationContext> = {
  roles: {
    "createRole - stores the role, listed oldest first; exists (nothing stored) for a name the organization has":
      async ({ store, twoOrganizations, newRole }) => {
        const { organization, other } = await twoOrganizations();
        const editor = newRole(organization.id, { name: "editor" });
        const auditor = newRole(organization.id, { name: "auditor", permissions: ["audit:read"] });
        expect(await store.listRoles(organization.id)).toEqual([]);
        expect(await store.createRole(editor)).toBe("created");
        expect(await store.createRole(auditor)).toBe("created");
        expect(await store.listRoles(organization.id)).toEqual([editor, auditor]);
        expect(await store.createRole({ ...editor, permissions: ["project:delete"] })).toBe("exists");
        expect(await store.listRoles(organization.id)).toEqual([editor, auditor]);
        const elsewhere = newRole(other.id, { name: "editor", permissions: [] });
        expect(await store.createRole(elsewhere)).toBe("created");
        expect(await store.listRoles(other.id)).toEqual([elsewhere]);
      },
    "updateRole - replaces the permissions (order kept) and returns the record; null when there is none":
      async ({ store, storedOrganization, storedRole }) => {
        const { organization } = await storedOrganization();
        const role = await storedRole(organization.id);
        const updated = { ...role, permissions: ["project:delete", "member:invite", "project:read"] };
        expect(await store.updateRole(organization.id, role.name, updated.permissions)).toEqual(updated);
        expect(await store.listRoles(organization.id)).toEqual([updated]);
        expect(await store.updateRole(organization.id, role.name, [])).toEqual({ ...role, permissions: [] });
        expect(await store.updateRole(organization.id, "nobody", ["project:read"])).toBeNull();
        expect(await store.updateRole(uniqueId("missing"), role.name, ["project:read"])).toBeNull();
      },
    "deleteRole - deleted, then not-found; in-use while a member holds it": async ({ store, roleHolder }) => {
      const { organization, role, member } = await roleHolder();
      expect(await store.deleteRole(organization.id, role.name)).toBe("in-use");
      expect(await store.listRoles(organization.id)).toEqual([role]);
      expect(await store.changeMemberRole(organization.id, member.userId, "member")).toBe("changed");
      expect(await store.deleteRole(organization.id, role.name)).toBe("deleted");
      expect(await store.listRoles(organization.id)).toEqual([]);
      expect(await store.deleteRole(organization.id, role.name)).toBe("not-found");
      expect(await store.deleteRole(uniqueId("missing"), role.name)).toBe("not-found");
    },
    "deleteRole - in-use while a pending invitation grants it; deleted once it is revoked": async ({
      store,
      twoOrganizations,
      storedRole,
      storedInvitation,
    }) => {
      const { organization, other } = await twoOrganizations();
      const role = await storedRole(organization.id);
      await storedRole(other.id, { name: role.name });
      const invitation = await storedInvitation(organization.id, { role: role.name, expiresAt: FAR_FUTURE });
      await storedInvitation(other.id, { role: "member", expiresAt: FAR_FUTURE });
      expect(await store.deleteRole(organization.id, role.name)).toBe("in-use");
      expect(await store.deleteRole(other.id, role.name)).toBe("deleted");
      expect(await store.revokeInvitation(organization.id, invitation.id)).toBe(true);
      expect(await store.deleteRole(organization.id, role.name)).toBe("deleted");
    },
    "deleteRole - racing its holders' role changes (10 organizations): a deleted role is held by no one":
      async ({ store, roleHolder }) => {
        const cases = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const { organization, role, member } = await roleHolder();
            return { organizationId: organization.id, role: role.name, userId: member.userId };
          }),
        );
        const results = await raced(
          10,
          (n) => store.changeMemberRole(cases[n]?.organizationId ?? "", cases[n]?.userId ?? "", "member"),
          (n) => store.deleteRole(cases[n]?.organizationId ?? "", cases[n]?.role ?? ""),
        );
        for (const [n, { organizationId, userId }] of cases.entries()) {
          const [changed, deleted] = results[n] ?? [];
          expect(changed).toBe("changed");
          expect(["deleted", "in-use"]).toContain(deleted);
          expect(await store.listRoles(organizationId)).toHaveLength(deleted === "deleted" ? 0 : 1);
          expect((await store.findMembership(organizationId, userId))?.membership.role).toBe("member");
        }
      },
    "deleteRole - racing the acceptance of an invitation granting it (10 organizations): always in-use":
      async ({ store, storedOrganization, storedRole, storedInvitation, later }) => {
        const cases = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const { organization } = await storedOrganization();
            const role = await storedRole(organization.id);
            const invitation = await storedInvitation(organization.id, {
              role: role.name,
              expiresAt: FAR_FUTURE,
            });
            return { organizationId: organization.id, role: role.name, tokenHash: invitation.tokenHash };
          }),
        );
        const now = later();
        const results = await raced(
          10,
          async (n) =>
            (await store.acceptInvitation(cases[n]?.tokenHash ?? "", uniqueId("user"), now)).status,
          (n) => store.deleteRole(cases[n]?.organizationId ?? "", cases[n]?.role ?? ""),
        );
        expect(results).toEqual(cases.map(() => ["accepted", "in-use"]));
        for (const { organizationId } of cases) expect(await store.listRoles(organizationId)).toHaveLength(1);
      },
  },
  invitations: {
    "createInvitation - stores it, found by its token hash; null for an unknown hash": async ({
      store,
      invitedOrganization,
    }) => {
      const { invitation } = await invitedOrganization({ role: "admin" });
      expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toEqual(invitation);
      expect(await store.findInvitationByTokenHash(uniqueId("hash"))).toBeNull();
    },
    "createInvitation - replaces the pending invitation of the same organization and email; others stay":
      async ({ store, twoOrganizations, storedInvitation }) => {
        const { organization, other } = await twoOrganizations();
        const email = `${uniqueId("guest")}@example.test`;
        const older = await storedInvitation(organization.id, { email });
        const elsewhere = await storedInvitation(other.id, { email });
        const someoneElse = await storedInvitation(organization.id);
        const newer = await storedInvitation(organization.id, { email, role: "admin" });
        expect(await store.findInvitationByTokenHash(older.tokenHash)).toBeNull();
        expect(await store.findInvitationByTokenHash(newer.tokenHash)).toEqual(newer);
        expect(await store.findInvitationByTokenHash(elsewhere.tokenHash)).toEqual(elsewhere);
        expect(await store.listInvitations(organization.id, newer.createdAt)).toEqual([newer, someoneElse]);
        expect(await store.listInvitationsForEmail(email, newer.createdAt)).toEqual([newer, elsewhere]);
        expect(
          (await store.acceptInvitation(older.tokenHash, uniqueId("user"), newer.createdAt)).status,
        ).toBe("invalid");
      },
    "createInvitation - 10 concurrent invitations of one address to one organization: one stays pending":
      async ({ store, storedOrganization, newInvitation }) => {
        const { organization } = await storedOrganization();
        const email = `${uniqueId("guest")}@example.test`;
        const invitations = Array.from({ length: 10 }, () => newInvitation(organization.id, { email }));
        await concurrently(10, (i) => store.createInvitation(invitations[i] as (typeof invitations)[number]));
        const now = Math.max(...invitations.map((invitation) => invitation.createdAt));
        const pending = await store.listInvitations(organization.id, now);
        expect(pending).toHaveLength(1);
        const found = await Promise.all(invitations.map((i) => store.findInvitationByTokenHash(i.tokenHash)));
        expect(found.filter((invitation) => invitation !== null)).toEqual(pending);
      },
    "listInvitations - the organization's invitations unexpired at now, newest first": async ({
      store,
      twoOrganizations,
      storedInvitation,
      later,
    }) => {
      const { organization, other } = await twoOrganizations();
      const now = later() + 3_600_000;
      const oldest = await storedInvitation(organization.id);
      const expired = await storedInvitation(organization.id, { expiresAt: now - 1 });
      const endsNow = await storedInvitation(organization.id, { expiresAt: now });
      const newest = await storedInvitation(organization.id, { expiresAt: now + 1 });
      await storedInvitation(other.id);
      expect(await store.listInvitations(organization.id, now)).toEqual([newest, oldest]);
      expect(await store.listInvitations(organization.id, now - 1)).toEqual([newest, endsNow, oldest]);
      expect(await store.listInvitations(uniqueId("missing"), now)).toEqual([]);
      expect(expired.expiresAt).toBeLessThan(now);
    },
    "listInvitationsForEmail - the address's invitations unexpired at now, in every organization, newest first":
      async ({ store, storedOrganization, storedInvitation, later }) => {
        const email = `${uniqueId("guest")}@example.test`;
        const { organization: first } = await storedOrganization();
        const { organization: second } = await storedOrganization();
        const { organization: third } = await storedOrganization();
        const now = later() + 3_600_000;
        const older = await storedInvitation(first.id, { email });
        await storedInvitation(second.id, { email, expiresAt: now });
        const newer = await storedInvitation(third.id, { email, role: "admin" });
        await storedInvitation(third.id);
        expect(await store.listInvitationsForEmail(email, now)).toEqual([newer, older]);
        expect(await store.listInvitationsForEmail(`${uniqueId("nobody")}@example.test`, now)).toEqual([]);
      },
    "revokeInvitation - removes the organization's invitation; false the second time and for another's":
      async ({ store, twoOrganizations, storedInvitation }) => {
        const { organization, other } = await twoOrganizations();
        const invitation = await storedInvitation(organization.id);
        expect(await store.revokeInvitation(other.id, invitation.id)).toBe(false);
        expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toEqual(invitation);
        expect(await store.revokeInvitation(organization.id, invitation.id)).toBe(true);
        expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toBeNull();
        expect(await store.listInvitations(organization.id, invitation.createdAt)).toEqual([]);
        expect(await store.revokeInvitation(organization.id, invitation.id)).toBe(false);
      },
    "declineInvitation - removes the invitation with the hash; false the second time": async ({
      store,
      invitedOrganization,
      storedInvitation,
    }) => {
      const { organization, invitation } = await invitedOrganization();
      const kept = await storedInvitation(organization.id);
      expect(await store.declineInvitation(invitation.tokenHash)).toBe(true);
      expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toBeNull();
      expect(await store.declineInvitation(invitation.tokenHash)).toBe(false);
      expect(await store.declineInvitation(uniqueId("hash"))).toBe(false);
      expect(await store.listInvitations(organization.id, kept.createdAt)).toEqual([kept]);
    },
    "acceptInvitation - stores the membership (the invitation's role, joined now) and removes the invitation":
      async ({ store, invitedOrganization, later }) => {
        const { organization, invitation } = await invitedOrganization({ role: "admin" });
        const userId = uniqueId("user");
        const now = later();
        const membership = { organizationId: organization.id, userId, role: "admin", joinedAt: now };
        expect(await store.acceptInvitation(invitation.tokenHash, userId, now)).toEqual({
          status: "accepted",
          membership,
          invitation,
        });
        expect(await store.findMembership(organization.id, userId)).toEqual({
          membership,
          rolePermissions: null,
        });
        expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toBeNull();
        expect(await store.acceptInvitation(invitation.tokenHash, uniqueId("user"), now)).toEqual({
          status: "invalid",
        });
      },
    "acceptInvitation - invalid (nothing stored) when expired at now, unknown, revoked or declined": async ({
      store,
      storedOrganization,
      storedInvitation,
    }) => {
      const { organization } = await storedOrganization();
      const userId = uniqueId("user");
      const expiring = await storedInvitation(organization.id);
      const revoked = await storedInvitation(organization.id);
      await store.revokeInvitation(organization.id, revoked.id);
      const declined = await storedInvitation(organization.id);
      await store.declineInvitation(declined.tokenHash);
      const attempts: [string, number][] = [
        [expiring.tokenHash, expiring.expiresAt],
        [expiring.tokenHash, expiring.expiresAt + 1],
        [uniqueId("hash"), expiring.createdAt],
        [revoked.tokenHash, revoked.createdAt],
        [declined.tokenHash, declined.createdAt],
      ];
      for (const [tokenHash, now] of attempts) {
        expect(await store.acceptInvitation(tokenHash, userId, now)).toEqual({ status: "invalid" });
      }
      expect(await store.findMembership(organization.id, userId)).toBeNull();
      expect((await store.acceptInvitation(expiring.tokenHash, userId, expiring.expiresAt - 1)).status).toBe(
        "accepted",
      );
    },
    "acceptInvitation - already-member: the invitation stays pending and the membership unchanged": async ({
      store,
      invitedOrganization,
    }) => {
      const { organization, owner, invitation } = await invitedOrganization({ role: "member" });
      const now = invitation.createdAt + 1;
      expect(await store.acceptInvitation(invitation.tokenHash, owner.userId, now)).toEqual({
        status: "already-member",
      });
      expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toEqual(invitation);
      expect((await store.findMembership(organization.id, owner.userId))?.membership).toEqual(owner);
    },
    "acceptInvitation - 10 concurrent acceptances by one user: exactly one membership": async ({
      store,
      invitedOrganization,
    }) => {
      const { organization, owner, invitation } = await invitedOrganization();
      const userId = uniqueId("user");
      const results = await concurrently(10, () =>
        store.acceptInvitation(invitation.tokenHash, userId, invitation.createdAt + 1),
      );
      expect(results.filter((result) => result.status === "accepted")).toHaveLength(1);
      for (const result of results)
        expect(["accepted", "invalid", "already-member"]).toContain(result.status);
      const members = (await store.listMembers(organization.id, { limit: 10 })).items;
      expect(members.map((member) => member.userId)).toEqual([owner.userId, userId]);
      expect(await store.listMembershipsOfUser(userId)).toHaveLength(1);
    },
    "acceptInvitation - 10 concurrent acceptances by 10 users: exactly one is accepted": async ({
      store,
      invitedOrganization,
    }) => {
      const { organization, owner, invitation } = await invitedOrganization();
      const users = Array.from({ length: 10 }, () => uniqueId("user"));
      const results = await concurrently(10, (i) =>
        store.acceptInvitation(invitation.tokenHash, users[i] as string, invitation.createdAt + 1),
      );
      expect(results.filter((result) => result.status === "accepted")).toHaveLength(1);
      expect(results.filter((result) => result.status === "invalid")).toHaveLength(9);
      const winner = users[results.findIndex((result) => result.status === "accepted")];
      const members = (await store.listMembers(organization.id, { limit: 20 })).items;
      expect(members.map((member) => member.userId)).toEqual([owner.userId, winner]);
    },
  },
  records: {
    "records - returned objects are copies: mutating them does not change the store": async ({
      store,
      storedOrganization,
      storedRole,
      storedInvitation,
      addMember,
      newOrganization,
      ownerOf,
    }) => {
      const input = newOrganization();
      const inputOwner = ownerOf(input);
      await store.createOrganization(input, inputOwner);
      const stored = { ...input };
      input.name = "evil";
      inputOwner.role = "member";
      expect(await store.findOrganization(input.id)).toEqual(stored);
      expect((await store.findMembership(input.id, inputOwner.userId))?.membership.role).toBe("owner");
      const { organization, owner } = await storedOrganization();
      const role = await storedRole(organization.id);
      const roleInput = await storedRole(input.id);
      roleInput.permissions.push("evil");
      const member = await addMember(organization.id, role.name);
      const invitation = await storedInvitation(organization.id);
      const found = await store.findOrganization(organization.id);
      if (found) found.name = "evil";
      const [entry] = await store.listMembershipsOfUser(owner.userId);
      if (entry) {
        entry.organization.slug = "evil";
        entry.membership.role = "member";
      }
      const read = await store.findMembership(organization.id, member.userId);
      read?.rolePermissions?.push("evil");
      if (read) read.membership.role = "owner";
      const [listedRole] = await store.listRoles(organization.id);
      listedRole?.permissions.push("evil");
      const [listedMember] = (await store.listMembers(organization.id, { limit: 1 })).items;
      if (listedMember) listedMember.role = "member";
      const [pending] = await store.listInvitations(organization.id, invitation.createdAt);
      if (pending) pending.role = "owner";
      const byHash = await store.findInvitationByTokenHash(invitation.tokenHash);
      if (byHash) byHash.expiresAt = 0;
      const page = await store.listOrganizations({ query: organization.slug, limit: 1 });
      if (page.items[0]) page.items[0].name = "evil";
      expect(await store.findOrganization(organization.id)).toEqual(organization);
      expect(await store.findMembership(organization.id, owner.userId)).toEqual({
        membership: owner,
        rolePermissions: null,
      });
      expect(await store.findMembership(organization.id, member.userId)).toEqual({
        membership: member,
        rolePermissions: role.permissions,
      });
      expect(await store.listRoles(organization.id)).toEqual([role]);
      expect((await store.listRoles(input.id))[0]?.permissions).toEqual(["project:write", "project:read"]);
      expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toEqual(invitation);
    },
  },
};
