import type { OrganizationRecord } from "@portcullis/core";
import { expect } from "vitest";
import { organizationContext, uniqueTag } from "./organization-store-context.js";
import { ORGANIZATION_INVITATION_TESTS } from "./organization-store-invitations.js";
import { ORGANIZATION_MEMBERSHIP_TESTS } from "./organization-store-members.js";
import { concurrently, defineStoreSuite, uniqueId } from "./store-fixture.js";

/**
 * The executable contract of `OrganizationStore` (see its TSDoc in @portcullis/core): times are
 * passed in, so no test waits, and the concurrency tests start their calls in one tick.
 */
export const runOrganizationStoreSuite = defineStoreSuite("OrganizationStore", organizationContext, {
  organizations: {
    "createOrganization - stores the organization and its owner's membership": async ({
      store,
      newOrganization,
      ownerOf,
    }) => {
      const organization = newOrganization();
      const owner = ownerOf(organization);
      expect(await store.createOrganization(organization, owner)).toBe("created");
      expect(await store.findOrganization(organization.id)).toEqual(organization);
      expect(await store.findMembership(organization.id, owner.userId)).toEqual({
        membership: owner,
        rolePermissions: null,
      });
      expect(await store.listMembershipsOfUser(owner.userId)).toEqual([{ organization, membership: owner }]);
      expect(await store.listMembers(organization.id, { limit: 10 })).toEqual({
        items: [owner],
        nextCursor: null,
      });
    },
    "createOrganization - a slug already taken stores nothing and returns slug-taken": async ({
      store,
      storedOrganization,
      newOrganization,
      ownerOf,
    }) => {
      const { organization } = await storedOrganization();
      const second = newOrganization({ slug: organization.slug, name: "Other" });
      const secondOwner = ownerOf(second);
      expect(await store.createOrganization(second, secondOwner)).toBe("slug-taken");
      expect(await store.findOrganization(second.id)).toBeNull();
      expect(await store.findMembership(second.id, secondOwner.userId)).toBeNull();
      expect(await store.listMembershipsOfUser(secondOwner.userId)).toEqual([]);
      expect(await store.findOrganization(organization.id)).toEqual(organization);
    },
    "createOrganization - 20 concurrent creations with one slug: exactly one is created": async ({
      store,
      newOrganization,
      ownerOf,
    }) => {
      const slug = uniqueId("o");
      const organizations = Array.from({ length: 20 }, () => newOrganization({ slug }));
      const owners = organizations.map((organization) => ownerOf(organization));
      const results = await concurrently(20, (i) =>
        store.createOrganization(
          organizations[i] as OrganizationRecord,
          owners[i] as (typeof owners)[number],
        ),
      );
      expect(results.filter((result) => result === "created")).toHaveLength(1);
      expect(results.filter((result) => result === "slug-taken")).toHaveLength(19);
      const winner = results.indexOf("created");
      expect((await store.listOrganizations({ query: slug, limit: 100 })).items).toEqual([
        organizations[winner],
      ]);
      for (const [i, owner] of owners.entries()) {
        expect(await store.listMembershipsOfUser(owner.userId)).toHaveLength(i === winner ? 1 : 0);
      }
    },
    "createOrganization - maxPerUser: limit-reached (nothing stored) once the owner belongs to that many":
      async ({ store, storedOrganization, newOrganization, ownerOf, addMember }) => {
        const userId = uniqueId("user");
        await storedOrganization({}, userId);
        await storedOrganization({}, userId);
        const { organization: joined } = await storedOrganization();
        await addMember(joined.id, "member", userId);
        const fourth = newOrganization();
        expect(await store.createOrganization(fourth, ownerOf(fourth, userId), { maxPerUser: 3 })).toBe(
          "limit-reached",
        );
        expect(await store.findOrganization(fourth.id)).toBeNull();
        expect(await store.listMembershipsOfUser(userId)).toHaveLength(3);
        expect(await store.createOrganization(fourth, ownerOf(fourth, userId), { maxPerUser: 4 })).toBe(
          "created",
        );
        const fifth = newOrganization();
        expect(await store.createOrganization(fifth, ownerOf(fifth, userId))).toBe("created");
        expect(await store.listMembershipsOfUser(userId)).toHaveLength(5);
      },
    "createOrganization - maxPerUser 3 and 10 concurrent creations by one user: exactly 3 are created":
      async ({ store, newOrganization, ownerOf }) => {
        const userId = uniqueId("user");
        const organizations = Array.from({ length: 10 }, () => newOrganization());
        const results = await concurrently(10, (i) => {
          const organization = organizations[i] as OrganizationRecord;
          return store.createOrganization(organization, ownerOf(organization, userId), { maxPerUser: 3 });
        });
        expect(results.filter((result) => result === "created")).toHaveLength(3);
        expect(results.filter((result) => result === "limit-reached")).toHaveLength(7);
        const memberships = await store.listMembershipsOfUser(userId);
        expect(memberships).toHaveLength(3);
        for (const [i, organization] of organizations.entries()) {
          const found = await store.findOrganization(organization.id);
          expect(found).toEqual(results[i] === "created" ? organization : null);
        }
      },
    "findOrganization - null when absent": async ({ store }) => {
      expect(await store.findOrganization(uniqueId("missing"))).toBeNull();
    },
    "findOrganizationBySlug (optional) - the organization with this slug; null for an unknown slug": async ({
      store,
      twoOrganizations,
    }) => {
      const find = store.findOrganizationBySlug?.bind(store);
      if (!find) return;
      const { organization, other } = await twoOrganizations();
      expect(await find(organization.slug)).toEqual(organization);
      expect(await find(other.slug)).toEqual(other);
      expect(await find(uniqueId("o"))).toBeNull();
    },
    "findOrganizationBySlug (optional) - compared exactly: null for the slug in another case or with a space":
      async ({ store, storedOrganization }) => {
        const find = store.findOrganizationBySlug?.bind(store);
        if (!find) return;
        const { organization } = await storedOrganization();
        const { slug } = organization;
        for (const variant of [
          slug.toUpperCase(),
          `O${slug.slice(1)}`,
          `${slug} `,
          ` ${slug}`,
          slug.slice(0, -1),
        ]) {
          expect(await find(variant)).toBeNull();
        }
        expect(await find(slug)).toEqual(organization);
      },
    "findOrganizationBySlug (optional) - follows updateOrganization (old slug null, new one found); null once deleted":
      async ({ store, storedOrganization }) => {
        const find = store.findOrganizationBySlug?.bind(store);
        if (!find) return;
        const { organization } = await storedOrganization();
        const moved = { ...organization, name: "Acme Europe", slug: uniqueId("o") };
        expect(
          await store.updateOrganization(organization.id, { name: moved.name, slug: moved.slug }),
        ).toEqual(moved);
        expect(await find(organization.slug)).toBeNull();
        expect(await find(moved.slug)).toEqual(moved);
        const { organization: reuse } = await storedOrganization({ slug: organization.slug });
        expect(await find(organization.slug)).toEqual(reuse);
        expect(await store.deleteOrganization(organization.id)).toBe(true);
        expect(await find(moved.slug)).toBeNull();
        expect(await find(organization.slug)).toEqual(reuse);
      },
    "findOrganizationBySlug (optional) - returns a copy: changing it changes nothing stored": async ({
      store,
      storedOrganization,
    }) => {
      const find = store.findOrganizationBySlug?.bind(store);
      if (!find) return;
      const { organization } = await storedOrganization();
      const found = (await find(organization.slug)) as OrganizationRecord;
      expect(found).toEqual(organization);
      found.name = "Changed";
      found.slug = uniqueId("o");
      expect(await find(organization.slug)).toEqual(organization);
      expect(await find(found.slug)).toBeNull();
      expect(await store.findOrganization(organization.id)).toEqual(organization);
    },
    "updateOrganization - changes the name, the slug or both and returns the record; the old slug is free":
      async ({ store, storedOrganization, newOrganization, ownerOf }) => {
        const { organization } = await storedOrganization();
        const renamed = { ...organization, name: "Acme Europe" };
        expect(await store.updateOrganization(organization.id, { name: "Acme Europe" })).toEqual(renamed);
        const slug = uniqueId("o");
        const moved = { ...renamed, slug };
        expect(await store.updateOrganization(organization.id, { slug })).toEqual(moved);
        const both = { ...moved, name: "Acme", slug: uniqueId("o") };
        expect(await store.updateOrganization(organization.id, { name: "Acme", slug: both.slug })).toEqual(
          both,
        );
        expect(await store.findOrganization(organization.id)).toEqual(both);
        expect(await store.updateOrganization(organization.id, {})).toEqual(both);
        const reuse = newOrganization({ slug: organization.slug });
        expect(await store.createOrganization(reuse, ownerOf(reuse))).toBe("created");
      },
    "updateOrganization - slug-taken (nothing changed) for another's slug; its own slug is fine; null when absent":
      async ({ store, twoOrganizations }) => {
        const { organization, other } = await twoOrganizations();
        expect(await store.updateOrganization(organization.id, { name: "New", slug: other.slug })).toBe(
          "slug-taken",
        );
        expect(await store.findOrganization(organization.id)).toEqual(organization);
        expect(await store.updateOrganization(organization.id, { slug: organization.slug })).toEqual(
          organization,
        );
        expect(await store.updateOrganization(uniqueId("missing"), { name: "Ghost" })).toBeNull();
        expect(await store.findOrganization(other.id)).toEqual(other);
      },
    "deleteOrganization - removes it with its members, roles and invitations; false the second time": async ({
      store,
      storedOrganization,
      addMember,
      storedRole,
      storedInvitation,
      newOrganization,
      ownerOf,
    }) => {
      const { organization, owner } = await storedOrganization();
      const { organization: kept, owner: keptOwner } = await storedOrganization();
      const member = await addMember(organization.id, "member");
      await storedRole(organization.id);
      const invitation = await storedInvitation(organization.id);
      expect(await store.deleteOrganization(organization.id)).toBe(true);
      expect(await store.findOrganization(organization.id)).toBeNull();
      for (const userId of [owner.userId, member.userId]) {
        expect(await store.findMembership(organization.id, userId)).toBeNull();
        expect(await store.listMembershipsOfUser(userId)).toEqual([]);
      }
      expect((await store.listMembers(organization.id, { limit: 10 })).items).toEqual([]);
      expect(await store.listRoles(organization.id)).toEqual([]);
      expect(await store.findInvitationByTokenHash(invitation.tokenHash)).toBeNull();
      expect(await store.listInvitationsForEmail(invitation.email, invitation.createdAt)).toEqual([]);
      expect(await store.deleteOrganization(organization.id)).toBe(false);
      expect(await store.findOrganization(kept.id)).toEqual(kept);
      expect(await store.findMembership(kept.id, keptOwner.userId)).not.toBeNull();
      const again = newOrganization({ slug: organization.slug });
      expect(await store.createOrganization(again, ownerOf(again, owner.userId))).toBe("created");
      expect(await store.listRoles(again.id)).toEqual([]);
    },
    "listOrganizations - a prefix of the slug or the name, in any case; the empty query lists all": async ({
      store,
      storedOrganization,
    }) => {
      const tag = uniqueTag();
      const { organization: bySlug } = await storedOrganization({ slug: `${tag}-alpha`, name: "Zeta" });
      const { organization: byName } = await storedOrganization({ name: `${tag.toUpperCase()} Beta` });
      const { organization: inside } = await storedOrganization({ slug: `x-${tag}`, name: `Other ${tag}` });
      const expected = [bySlug, byName].sort((x, y) => (x.id < y.id ? -1 : 1));
      for (const query of [tag, tag.toUpperCase(), tag.slice(0, -2)]) {
        expect(await store.listOrganizations({ query, limit: 100 })).toEqual({
          items: expected,
          nextCursor: null,
        });
      }
      expect((await store.listOrganizations({ query: `${tag}-b`, limit: 100 })).items).toEqual([]);
      expect((await store.listOrganizations({ query: `${tag} beta`, limit: 100 })).items).toEqual([byName]);
      const everyone = await store.listOrganizations({ query: "", limit: 100 });
      expect(everyone.items.length).toBeGreaterThanOrEqual(3);
      const ids = new Set<string>();
      let cursor: string | undefined;
      for (let page = 0; page < 1_000; page++) {
        const { items, nextCursor } = await store.listOrganizations({ query: "", cursor, limit: 100 });
        for (const item of items) ids.add(item.id);
        if (nextCursor === null) break;
        cursor = nextCursor;
      }
      for (const organization of [bySlug, byName, inside]) expect(ids).toContain(organization.id);
    },
    "listOrganizations - % and _ in a query match only themselves": async ({ store, storedOrganization }) => {
      const tag = uniqueTag();
      const { organization: percent } = await storedOrganization({ name: `${tag} 100% done` });
      await storedOrganization({ name: `${tag} 100x done` });
      await storedOrganization({ name: `${tag} 1000 done` });
      expect((await store.listOrganizations({ query: `${tag} 100%`, limit: 100 })).items).toEqual([percent]);
      expect((await store.listOrganizations({ query: `${tag} 100_`, limit: 100 })).items).toEqual([]);
      expect((await store.listOrganizations({ query: `${tag}%`, limit: 100 })).items).toEqual([]);
    },
    "listOrganizations - ordered by id, limit at a time after the cursor, nextCursor null on the last page":
      async ({ store, storedOrganization, allPages }) => {
        const tag = uniqueTag();
        const base = uniqueId("org");
        const organizations: OrganizationRecord[] = [];
        for (const n of [3, 0, 4, 1, 2]) {
          organizations[n] = (
            await storedOrganization({ id: `${base}-${n}`, name: `${tag} ${n}` })
          ).organization;
        }
        const pages = await allPages((cursor) => store.listOrganizations({ query: tag, cursor, limit: 2 }));
        expect(pages).toEqual([organizations.slice(0, 2), organizations.slice(2, 4), organizations.slice(4)]);
        const [first] = await allPages((cursor) => store.listOrganizations({ query: tag, cursor, limit: 5 }));
        expect(first).toEqual(organizations);
      },
    "listOrganizations - pages never repeat or skip an organization while others are added between them":
      async ({ store, storedOrganization, allPages }) => {
        const tag = uniqueTag();
        const base = uniqueId("org");
        const id = (n: number) => `${base}-${String(n).padStart(3, "0")}`;
        const existing = Array.from({ length: 20 }, (_, i) => id(i * 2 + 2));
        for (const organizationId of existing) await storedOrganization({ id: organizationId, name: tag });
        let added = 1;
        const pages = await allPages(
          (cursor) => store.listOrganizations({ query: tag, cursor, limit: 3 }),
          async () => {
            // One before the cursor, one after it.
            for (const n of [added, added + 20]) await storedOrganization({ id: id(n), name: tag });
            added += 2;
          },
        );
        const seen = pages.flat().map((organization) => organization.id);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual([...seen].sort());
        for (const organizationId of existing) expect(seen).toContain(organizationId);
      },
  },
  ...ORGANIZATION_MEMBERSHIP_TESTS,
  ...ORGANIZATION_INVITATION_TESTS,
});
