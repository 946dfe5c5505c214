// The OrganizationStore conformance tests of memberships, owners and removing a user;
// organization-store-suite.ts runs them with the others.
import type { MembershipRecord } from "@portcullis/core";
import { expect } from "vitest";
import { type OrganizationContext, raced, T0 } from "./organization-store-context.js";
import type { StoreTests } from "./store-fixture.js";
import { concurrently, uniqueId } from "./store-fixture.js";

/** Ten organizations, each with two owners and a plain member. */
async function organizationsWithTwoOwners({ storedOrganization, addMember }: OrganizationContext) {
  return Promise.all(
    Array.from({ length: 10 }, async () => {
      const { organization, owner } = await storedOrganization();
      const second = await addMember(organization.id, "owner");
      await addMember(organization.id, "member");
      return { organizationId: organization.id, owners: [owner.userId, second.userId] as const };
    }),
  );
}

/**
 * `leave` for both owners of each of ten organizations (two owners and a member each), all at
 * once: each organization's two results, sorted, are `outcomes`, and one owner is left.
 */
async function ownersLeaveAtOnce(
  context: OrganizationContext,
  leave: (organizationId: string, userId: string) => Promise<string>,
  outcomes: string[],
) {
  const organizations = await organizationsWithTwoOwners(context);
  const results = await concurrently(20, (i) => {
    const { organizationId, owners } = organizations[i >> 1] as (typeof organizations)[number];
    return leave(organizationId, owners[i & 1] as string);
  });
  for (const [n, { organizationId }] of organizations.entries()) {
    expect([results[2 * n], results[2 * n + 1]].sort()).toEqual(outcomes);
    expect(await context.ownersOf(organizationId)).toHaveLength(1);
  }
}

/** A new organization and its memberships, oldest first: the owner's, then `count` members added. */
async function withMembers({ storedOrganization, addMember }: OrganizationContext, count: number) {
  const { organization, owner } = await storedOrganization();
  const members = [owner];
  for (let i = 0; i < count; i++) members.push(await addMember(organization.id));
  return { organization, members };
}

/** The "memberships" and "owners" groups of the suite. */
export const ORGANIZATION_MEMBERSHIP_TESTS: StoreTests<OrganizationContext> = {
  memberships: {
    "findMembership - null for a non-member and for an unknown organization": async ({
      store,
      storedOrganization,
    }) => {
      const { organization, owner } = await storedOrganization();
      expect(await store.findMembership(organization.id, uniqueId("user"))).toBeNull();
      expect(await store.findMembership(uniqueId("missing"), owner.userId)).toBeNull();
    },
    "findMembership - a custom role's permissions in the same read; null for the built-in roles": async ({
      store,
      roleHolder,
      addMember,
    }) => {
      const permissions = ["project:write", "project:read"];
      const { organization, owner, role, member: editor } = await roleHolder({ permissions });
      expect(await store.findMembership(organization.id, editor.userId)).toEqual({
        membership: editor,
        rolePermissions: ["project:write", "project:read"],
      });
      for (const role of ["admin", "member"]) {
        const member = await addMember(organization.id, role);
        expect(await store.findMembership(organization.id, member.userId)).toEqual({
          membership: member,
          rolePermissions: null,
        });
      }
      expect((await store.findMembership(organization.id, owner.userId))?.rolePermissions).toBeNull();
      await store.updateRole(organization.id, role.name, ["project:delete"]);
      expect((await store.findMembership(organization.id, editor.userId))?.rolePermissions).toEqual([
        "project:delete",
      ]);
    },
    "findMembership - rolePermissions null when the member's custom role does not exist": async ({
      store,
      twoOrganizations,
      storedRole,
      addMember,
    }) => {
      const { organization, other } = await twoOrganizations();
      await storedRole(other.id, { name: "ghost" });
      const member = await addMember(organization.id, "ghost");
      expect(await store.findMembership(organization.id, member.userId)).toEqual({
        membership: member,
        rolePermissions: null,
      });
    },
    "listMembershipsOfUser - each organization of the user with the membership, oldest membership first":
      async ({ store, storedOrganization, addMember }) => {
        const userId = uniqueId("user");
        expect(await store.listMembershipsOfUser(userId)).toEqual([]);
        const { organization: joinedLater } = await storedOrganization();
        const { organization: joinedFirst } = await storedOrganization();
        const first = await addMember(joinedFirst.id, "admin", userId);
        const created = await storedOrganization({}, userId);
        const last = await addMember(joinedLater.id, "member", userId);
        const earliest = await storedOrganization({ createdAt: T0 - 1 }, userId);
        expect(await store.listMembershipsOfUser(userId)).toEqual([
          { organization: earliest.organization, membership: earliest.owner },
          { organization: joinedFirst, membership: first },
          { organization: created.organization, membership: created.owner },
          { organization: joinedLater, membership: last },
        ]);
      },
    "listMembers - oldest first, limit at a time after the cursor, nextCursor null on the last page": async (
      context,
    ) => {
      const { store, storedOrganization, addMember, allPages } = context;
      const { organization, members } = await withMembers(context, 4);
      const { organization: other } = await storedOrganization();
      await addMember(other.id);
      const pages = await allPages((cursor) => store.listMembers(organization.id, { cursor, limit: 2 }));
      expect(pages).toEqual([members.slice(0, 2), members.slice(2, 4), members.slice(4)]);
      expect(await store.listMembers(organization.id, { limit: 5 })).toEqual({
        items: members,
        nextCursor: null,
      });
      expect(await store.listMembers(uniqueId("missing"), { limit: 5 })).toEqual({
        items: [],
        nextCursor: null,
      });
    },
    "listMembers - pages never repeat or skip a member while others join and leave between them": async (
      context,
    ) => {
      const { store, addMember, allPages } = context;
      const { organization, members } = await withMembers(context, 12);
      const left: string[] = [];
      const joined: string[] = [];
      const pages = await allPages(
        (cursor) => store.listMembers(organization.id, { cursor, limit: 3 }),
        async (page) => {
          // The member the cursor points at leaves; someone new joins.
          const last = page.at(-1);
          if (last && last.role !== "owner") {
            expect(await store.removeMember(organization.id, last.userId)).toBe("removed");
            left.push(last.userId);
          }
          if (joined.length < 3) joined.push((await addMember(organization.id)).userId);
        },
      );
      const seen = pages.flat().map((member) => member.userId);
      expect(new Set(seen).size).toBe(seen.length);
      for (const member of members) expect(seen).toContain(member.userId);
      for (const userId of joined) expect(seen).toContain(userId);
      expect(left.length).toBeGreaterThanOrEqual(4);
    },
    "changeMemberRole - gives the member another role; not-found for a non-member": async ({
      store,
      storedOrganization,
      addMember,
    }) => {
      const { organization } = await storedOrganization();
      const member = await addMember(organization.id);
      expect(await store.changeMemberRole(organization.id, member.userId, "admin")).toBe("changed");
      const changed = { ...member, role: "admin" };
      expect((await store.findMembership(organization.id, member.userId))?.membership).toEqual(changed);
      expect(await store.listMembershipsOfUser(member.userId)).toEqual([
        { organization, membership: changed },
      ]);
      expect(await store.changeMemberRole(organization.id, uniqueId("user"), "admin")).toBe("not-found");
      expect(await store.changeMemberRole(uniqueId("missing"), member.userId, "admin")).toBe("not-found");
    },
    "removeMember - removes the member; not-found for a non-member and the second time": async ({
      store,
      storedOrganization,
      addMember,
    }) => {
      const { organization, owner } = await storedOrganization();
      const member = await addMember(organization.id);
      expect(await store.removeMember(organization.id, member.userId)).toBe("removed");
      expect(await store.findMembership(organization.id, member.userId)).toBeNull();
      expect(await store.listMembershipsOfUser(member.userId)).toEqual([]);
      expect(await store.removeMember(organization.id, member.userId)).toBe("not-found");
      expect(await store.removeMember(uniqueId("missing"), owner.userId)).toBe("not-found");
      expect((await store.listMembers(organization.id, { limit: 10 })).items).toEqual([owner]);
    },
    "addMember (optional) - stores the membership as given (role, joinedAt); findMembership and listMembers see it":
      async ({ store, storedOrganization, addMember }) => {
        const add = store.addMember?.bind(store);
        if (!add) return;
        const { organization, owner } = await storedOrganization();
        const newcomer = await addMember(organization.id);
        // Joined before the owner: the given joinedAt is kept, not the time of the call.
        const admin: MembershipRecord = {
          organizationId: organization.id,
          userId: uniqueId("user"),
          role: "admin",
          joinedAt: owner.joinedAt - 60_000,
        };
        expect(await add(admin)).toBe("added");
        expect(await store.findMembership(organization.id, admin.userId)).toEqual({
          membership: admin,
          rolePermissions: null,
        });
        expect(await store.listMembers(organization.id, { limit: 10 })).toEqual({
          items: [admin, owner, newcomer],
          nextCursor: null,
        });
        expect(await store.listMembershipsOfUser(admin.userId)).toEqual([
          { organization, membership: admin },
        ]);
      },
    "addMember (optional) - exists: a member already, nothing changed (the role stays)": async ({
      store,
      storedOrganization,
      addMember,
      later,
    }) => {
      const add = store.addMember?.bind(store);
      if (!add) return;
      const { organization, owner } = await storedOrganization();
      const member = await addMember(organization.id, "admin");
      for (const existing of [owner, member]) {
        expect(await add({ ...existing, role: "member", joinedAt: later() })).toBe("exists");
        expect((await store.findMembership(organization.id, existing.userId))?.membership).toEqual(existing);
      }
      expect((await store.listMembers(organization.id, { limit: 10 })).items).toEqual([owner, member]);
    },
    "addMember (optional) - not-found: no such organization (never created or deleted), nothing stored":
      async ({ store, storedOrganization, later }) => {
        const add = store.addMember?.bind(store);
        if (!add) return;
        const { organization: deleted } = await storedOrganization();
        expect(await store.deleteOrganization(deleted.id)).toBe(true);
        const userId = uniqueId("user");
        for (const organizationId of [uniqueId("missing"), deleted.id]) {
          const membership = { organizationId, userId, role: "member", joinedAt: later() };
          expect(await add(membership)).toBe("not-found");
          expect(await store.findMembership(organizationId, userId)).toBeNull();
          expect((await store.listMembers(organizationId, { limit: 10 })).items).toEqual([]);
        }
        expect(await store.listMembershipsOfUser(userId)).toEqual([]);
      },
    "addMember (optional) - 20 concurrent additions of one user: exactly one added, one membership": async ({
      store,
      storedOrganization,
    }) => {
      const add = store.addMember?.bind(store);
      if (!add) return;
      const { organization, owner } = await storedOrganization();
      const userId = uniqueId("user");
      const attempts = Array.from({ length: 20 }, (_, i) => ({
        organizationId: organization.id,
        userId,
        role: i % 2 === 0 ? "member" : "admin",
        joinedAt: owner.joinedAt + 1_000 + i,
      }));
      // Reads first, so a store on a pool has its connections open and the additions overlap.
      await concurrently(20, () => store.findMembership(organization.id, userId));
      const results = await concurrently(20, (i) => add(attempts[i] as MembershipRecord));
      expect(results.filter((result) => result === "added")).toHaveLength(1);
      expect(results.filter((result) => result === "exists")).toHaveLength(19);
      const winner = attempts[results.indexOf("added")];
      expect(await store.listMembershipsOfUser(userId)).toEqual([{ organization, membership: winner }]);
      expect((await store.listMembers(organization.id, { limit: 10 })).items).toEqual([owner, winner]);
    },
    "addMember (optional) - a custom role's member blocks deleteRole (in-use) until removed": async ({
      store,
      storedOrganization,
      storedRole,
      later,
    }) => {
      const add = store.addMember?.bind(store);
      if (!add) return;
      const { organization } = await storedOrganization();
      const role = await storedRole(organization.id);
      const member = {
        organizationId: organization.id,
        userId: uniqueId("user"),
        role: role.name,
        joinedAt: later(),
      };
      expect(await add(member)).toBe("added");
      expect(await store.findMembership(organization.id, member.userId)).toEqual({
        membership: member,
        rolePermissions: role.permissions,
      });
      expect(await store.deleteRole(organization.id, role.name)).toBe("in-use");
      expect(await store.listRoles(organization.id)).toEqual([role]);
      expect(await store.removeMember(organization.id, member.userId)).toBe("removed");
      expect(await store.deleteRole(organization.id, role.name)).toBe("deleted");
    },
  },
  owners: {
    "changeMemberRole - the only owner cannot be demoted (last-owner); one of two owners can": async ({
      store,
      storedOrganization,
      addMember,
    }) => {
      const { organization, owner } = await storedOrganization();
      const member = await addMember(organization.id, "admin");
      expect(await store.changeMemberRole(organization.id, owner.userId, "admin")).toBe("last-owner");
      expect((await store.findMembership(organization.id, owner.userId))?.membership).toEqual(owner);
      expect(await store.changeMemberRole(organization.id, member.userId, "owner")).toBe("changed");
      expect(await store.changeMemberRole(organization.id, owner.userId, "member")).toBe("changed");
      expect(await store.changeMemberRole(organization.id, member.userId, "admin")).toBe("last-owner");
    },
    "removeMember - the only owner cannot be removed (last-owner); one of two owners can": async ({
      store,
      storedOrganization,
      addMember,
      ownersOf,
    }) => {
      const { organization, owner } = await storedOrganization();
      const member = await addMember(organization.id);
      expect(await store.removeMember(organization.id, owner.userId)).toBe("last-owner");
      expect((await store.findMembership(organization.id, owner.userId))?.membership).toEqual(owner);
      const second = await addMember(organization.id, "owner");
      expect(await store.removeMember(organization.id, owner.userId)).toBe("removed");
      expect(await store.removeMember(organization.id, second.userId)).toBe("last-owner");
      expect(await ownersOf(organization.id)).toEqual([second]);
      expect(await store.removeMember(organization.id, member.userId)).toBe("removed");
    },
    "changeMemberRole - concurrent demotions of the last two owners (10 organizations): one each succeeds": (
      context,
    ) =>
      ownersLeaveAtOnce(
        context,
        (organizationId, userId) => context.store.changeMemberRole(organizationId, userId, "admin"),
        ["changed", "last-owner"],
      ),
    "removeMember - concurrent removals of the last two owners (10 organizations): one each succeeds": (
      context,
    ) =>
      ownersLeaveAtOnce(
        context,
        (organizationId, userId) => context.store.removeMember(organizationId, userId),
        ["last-owner", "removed"],
      ),
    "changeMemberRole / removeMember - a demotion racing the other owner's removal leaves one owner": async (
      context,
    ) => {
      const organizations = await organizationsWithTwoOwners(context);
      const results = await raced(
        10,
        (n) =>
          context.store.changeMemberRole(
            organizations[n]?.organizationId ?? "",
            organizations[n]?.owners[0] ?? "",
            "member",
          ),
        (n) =>
          context.store.removeMember(
            organizations[n]?.organizationId ?? "",
            organizations[n]?.owners[1] ?? "",
          ),
      );
      for (const [n, { organizationId }] of organizations.entries()) {
        expect((results[n] as string[]).filter((result) => result === "last-owner")).toHaveLength(1);
        expect(await context.ownersOf(organizationId)).toHaveLength(1);
      }
    },
    "removeUser - removes memberships, deletes organizations the user was alone in, keeps shared ones":
      async ({ store, storedOrganization, addMember, storedRole, storedInvitation }) => {
        const userId = uniqueId("user");
        const { organization: alone } = await storedOrganization({}, userId);
        await storedRole(alone.id);
        const invitation = await storedInvitation(alone.id);
        const { organization: coOwned, owner: coOwner } = await storedOrganization({}, userId);
        const otherOwner = await addMember(coOwned.id, "owner");
        const { organization: joined, owner: joinedOwner } = await storedOrganization();
        await addMember(joined.id, "admin", userId);
        expect(await store.removeUser(userId)).toEqual({ blockedBy: [], deletedOrganizations: [alone.id] });
        expect(await store.findOrganization(alone.id)).toBeNull();
        expect(await store.listRoles(alone.id)).toEqual([]);
        expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toBeNull();
        expect(await store.listMembershipsOfUser(userId)).toEqual([]);
        expect((await store.listMembers(coOwned.id, { limit: 10 })).items).toEqual([otherOwner]);
        expect((await store.listMembers(joined.id, { limit: 10 })).items).toEqual([joinedOwner]);
        expect(await store.findMembership(coOwned.id, coOwner.userId)).toBeNull();
        expect(await store.removeUser(userId)).toEqual({ blockedBy: [], deletedOrganizations: [] });
      },
    "removeUser - the only owner of an organization with other members: blockedBy, nothing removed": async ({
      store,
      storedOrganization,
      addMember,
    }) => {
      const userId = uniqueId("user");
      const { organization: blocking, owner } = await storedOrganization({}, userId);
      const member = await addMember(blocking.id, "admin");
      const { organization: alone, owner: aloneOwner } = await storedOrganization({}, userId);
      const { organization: joined } = await storedOrganization();
      const joinedMembership = await addMember(joined.id, "member", userId);
      const before = await store.listMembershipsOfUser(userId);
      expect(await store.removeUser(userId)).toEqual({ blockedBy: [blocking.id], deletedOrganizations: [] });
      expect(await store.listMembershipsOfUser(userId)).toEqual(before);
      expect(before.map((entry) => entry.membership)).toEqual([owner, aloneOwner, joinedMembership]);
      expect(await store.findOrganization(alone.id)).toEqual(alone);
      expect((await store.listMembers(blocking.id, { limit: 10 })).items).toEqual([owner, member]);
    },
    "removeUser - racing an acceptance into the organization the user is alone in (10 organizations)":
      async ({ store, invitedOrganization, later }) => {
        const cases = await Promise.all(
          Array.from({ length: 10 }, async () => {
            const { organization, owner, invitation } = await invitedOrganization();
            return { organizationId: organization.id, userId: owner.userId, tokenHash: invitation.tokenHash };
          }),
        );
        const now = later();
        const results = await raced(
          10,
          (n) => store.removeUser(cases[n]?.userId ?? ""),
          async (n) =>
            (await store.acceptInvitation(cases[n]?.tokenHash ?? "", uniqueId("user"), now)).status,
        );
        for (const [n, { organizationId }] of cases.entries()) {
          const [removal, acceptance] = results[n] ?? [];
          // Either the organization is deleted first (the invitation with it), or the newcomer
          // joins first and the only owner cannot leave them behind.
          if (acceptance === "accepted") {
            expect(removal).toEqual({ blockedBy: [organizationId], deletedOrganizations: [] });
            expect((await store.listMembers(organizationId, { limit: 10 })).items).toHaveLength(2);
          } else {
            expect(acceptance).toBe("invalid");
            expect(removal).toEqual({ blockedBy: [], deletedOrganizations: [organizationId] });
            expect(await store.findOrganization(organizationId)).toBeNull();
          }
        }
      },
  },
};
