import type { IdentityRecord, IdentityStore } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, storeContext, uniqueId } from "./store-fixture.js";

const ISSUER = "https://issuer.example.test";

const newIdentity = (overrides: Partial<IdentityRecord> = {}): IdentityRecord => ({
  userId: uniqueId("user"),
  provider: "oidc",
  issuer: ISSUER,
  subject: uniqueId("subject"),
  email: "ada@example.test",
  createdAt: 1_700_000_000_000,
  ...overrides,
});

/** The executable contract of `IdentityStore` (see its TSDoc in @portcullis/core). */
export const runIdentityStoreSuite = defineStoreSuite("IdentityStore", storeContext<IdentityStore>, {
  "": {
    "link - stores the identity and returns it; findBySubject and listByUser read it back": async ({
      store,
    }) => {
      const identity = newIdentity();
      expect(await store.link(identity)).toEqual(identity);
      expect(await store.findBySubject(identity.issuer, identity.subject)).toEqual(identity);
      expect(await store.listByUser(identity.userId)).toEqual([identity]);
    },
    "link - an email of null is kept as null": async ({ store }) => {
      const identity = newIdentity({ email: null });
      await store.link(identity);
      expect(await store.findBySubject(identity.issuer, identity.subject)).toEqual(identity);
    },
    "findBySubject - null when there is no such identity; issuer and subject are matched together": async ({
      store,
    }) => {
      const identity = newIdentity();
      await store.link(identity);
      expect(await store.findBySubject(ISSUER, uniqueId("missing"))).toBeNull();
      expect(await store.findBySubject("https://other.example.test", identity.subject)).toBeNull();
      expect(await store.findBySubject(identity.subject, identity.issuer)).toBeNull();
    },
    "findBySubject - matches exactly: case and surrounding text matter": async ({ store }) => {
      const identity = newIdentity({ subject: uniqueId("Subject") });
      await store.link(identity);
      expect(await store.findBySubject(ISSUER, identity.subject.toLowerCase())).toBeNull();
      expect(await store.findBySubject(`${ISSUER}/`, identity.subject)).toBeNull();
    },
    "listByUser - empty when the user has no identity; oldest first otherwise": async ({ store }) => {
      const userId = uniqueId("user");
      expect(await store.listByUser(userId)).toEqual([]);
      const later = newIdentity({ userId, provider: "github", createdAt: 1_700_000_000_500 });
      const earlier = newIdentity({ userId, provider: "oidc", createdAt: 1_700_000_000_000 });
      await store.link(later);
      await store.link(earlier);
      expect(await store.listByUser(userId)).toEqual([earlier, later]);
      expect(await store.listByUser(uniqueId("user"))).toEqual([]);
    },
    "link - the same issuer and subject a second time (another user) stores nothing and returns null":
      async ({ store }) => {
        const identity = newIdentity();
        await store.link(identity);
        const other = newIdentity({ subject: identity.subject });
        expect(await store.link(other)).toBeNull();
        expect(await store.findBySubject(ISSUER, identity.subject)).toEqual(identity);
        expect(await store.listByUser(other.userId)).toEqual([]);
      },
    "link - a second identity of the same provider for one user stores nothing and returns null": async ({
      store,
    }) => {
      const identity = newIdentity();
      await store.link(identity);
      const second = newIdentity({ userId: identity.userId });
      expect(await store.link(second)).toBeNull();
      expect(await store.findBySubject(ISSUER, second.subject)).toBeNull();
    },
    "link - one subject at two issuers is two identities": async ({ store }) => {
      const subject = uniqueId("subject");
      const a = newIdentity({ subject, provider: "a" });
      const b = newIdentity({ subject, provider: "b", issuer: "https://b.example.test" });
      expect(await store.link(a)).toEqual(a);
      expect(await store.link(b)).toEqual(b);
      expect(await store.findBySubject(b.issuer, subject)).toEqual(b);
    },
    "link - 20 concurrent links of one identity to 20 users: exactly one succeeds, and only it is stored":
      async ({ store }) => {
        const subject = uniqueId("race");
        const identities = Array.from({ length: 20 }, () => newIdentity({ subject }));
        const results = await concurrently(20, (i) => store.link(identities[i] as IdentityRecord));
        const linked = results.filter((result) => result !== null);
        expect(linked).toHaveLength(1);
        expect(await store.findBySubject(ISSUER, subject)).toEqual(linked[0]);
        const lists = await Promise.all(identities.map((identity) => store.listByUser(identity.userId)));
        expect(lists.flat()).toHaveLength(1);
      },
    "link - 20 concurrent links of one provider for one user: exactly one succeeds": async ({ store }) => {
      const userId = uniqueId("user");
      const identities = Array.from({ length: 20 }, () => newIdentity({ userId }));
      const results = await concurrently(20, (i) => store.link(identities[i] as IdentityRecord));
      expect(results.filter((result) => result !== null)).toHaveLength(1);
      expect(await store.listByUser(userId)).toHaveLength(1);
    },
    "unlink - removes the user's identity of that provider only, frees it, and is false the second time":
      async ({ store }) => {
        const userId = uniqueId("user");
        const oidc = newIdentity({ userId });
        const github = newIdentity({ userId, provider: "github", issuer: "https://github.com" });
        await store.link(oidc);
        await store.link(github);
        expect(await store.unlink(userId, "oidc")).toBe(true);
        expect(await store.findBySubject(ISSUER, oidc.subject)).toBeNull();
        expect(await store.listByUser(userId)).toEqual([github]);
        expect(await store.unlink(userId, "oidc")).toBe(false);
        const again = newIdentity({ subject: oidc.subject });
        expect(await store.link(again)).toEqual(again);
      },
    "unlink - false for a user without that provider, and another user's identity stays": async ({
      store,
    }) => {
      const identity = newIdentity();
      await store.link(identity);
      expect(await store.unlink(uniqueId("user"), "oidc")).toBe(false);
      expect(await store.unlink(identity.userId, "github")).toBe(false);
      expect(await store.findBySubject(ISSUER, identity.subject)).toEqual(identity);
    },
    "unlink - keepAtLeast: removes only when the user keeps that many links afterwards": async ({
      store,
    }) => {
      const userId = uniqueId("user");
      const oidc = newIdentity({ userId });
      const github = newIdentity({
        userId,
        provider: "github",
        issuer: "https://github.com",
        createdAt: oidc.createdAt + 1,
      });
      await store.link(oidc);
      await store.link(github);
      expect(await store.unlink(userId, "oidc", { keepAtLeast: 2 })).toBe(false);
      expect(await store.listByUser(userId)).toEqual([oidc, github]);
      expect(await store.unlink(userId, "missing", { keepAtLeast: 1 })).toBe(false);
      expect(await store.unlink(userId, "oidc", { keepAtLeast: 1 })).toBe(true);
      expect(await store.unlink(userId, "github", { keepAtLeast: 1 })).toBe(false);
      expect(await store.listByUser(userId)).toEqual([github]);
      expect(await store.unlink(userId, "github", { keepAtLeast: 0 })).toBe(true);
      expect(await store.listByUser(userId)).toEqual([]);
    },
    "unlink - 20 concurrent unlinks with keepAtLeast 1 of a user's 5 links (no password): exactly 1 is left":
      async ({ store }) => {
        const userId = uniqueId("user");
        const providers = ["a", "b", "c", "d", "e"];
        for (const provider of providers) await store.link(newIdentity({ userId, provider }));
        const other = newIdentity();
        await store.link(other);
        const results = await concurrently(20, (i) =>
          store.unlink(userId, providers[i % providers.length] as string, { keepAtLeast: 1 }),
        );
        expect(results.filter(Boolean)).toHaveLength(providers.length - 1);
        const left = await store.listByUser(userId);
        expect(left).toHaveLength(1);
        expect(providers).toContain(left[0]?.provider);
        expect(await store.listByUser(other.userId)).toEqual([other]);
      },
    "unlink - 20 concurrent unlinks without a condition (the user has a password) may remove all 5 links":
      async ({ store }) => {
        const userId = uniqueId("user");
        const providers = ["a", "b", "c", "d", "e"];
        for (const provider of providers) await store.link(newIdentity({ userId, provider }));
        const results = await concurrently(20, (i) =>
          store.unlink(userId, providers[i % providers.length] as string),
        );
        expect(results.filter(Boolean)).toHaveLength(providers.length);
        expect(await store.listByUser(userId)).toEqual([]);
      },
    "records - returned objects are copies: mutating them does not change the store": async ({ store }) => {
      const identity = newIdentity();
      const linked = await store.link(identity);
      if (linked) linked.userId = "evil";
      const found = await store.findBySubject(ISSUER, identity.subject);
      if (found) found.email = "evil@example.test";
      const [listed] = await store.listByUser(identity.userId);
      if (listed) listed.provider = "evil";
      expect(await store.findBySubject(ISSUER, identity.subject)).toEqual(identity);
    },
  },
});
