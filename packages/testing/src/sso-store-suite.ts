import { expect } from "vitest";
import { SSO_ASSERTION_TESTS, SSO_CONCURRENCY_TESTS, SSO_REMOVAL_TESTS } from "./sso-store-assertions.js";
import {
  byDomain,
  NOW,
  newConnectionId,
  newDomain,
  newHash,
  newOrganizationId,
  oidcSettings,
  type SsoTests,
  samlSettings,
  ssoContext,
  swapCase,
  T0,
} from "./sso-store-context.js";
import { SSO_DOMAIN_TESTS, SSO_ROUTE_TESTS } from "./sso-store-domains.js";
import { defineStoreSuite } from "./store-fixture.js";

/** The tests of `createSsoConnection`, `findSsoConnection`, `listSsoConnections` and `deleteSsoConnection`. */
const CONNECTION_TESTS: SsoTests = {
  "createSsoConnection - stores the connection as given; findSsoConnection reads every field back, arrays in order":
    async ({ store, connection, oidcConnection }) => {
      const saml = connection({
        domains: [newDomain("z"), newDomain("a"), newDomain("m")],
        defaultRole: "Viewer ✓",
        ssoRequired: true,
        idpInitiated: true,
      });
      const oidc = oidcConnection({ domains: [], scimTokenHash: null, createdAt: T0, updatedAt: T0 + 5 });
      for (const made of [saml, oidc])
        expect(await store.createSsoConnection(structuredClone(made))).toBe("created");
      expect(await store.findSsoConnection(saml.id)).toEqual(saml);
      expect(await store.findSsoConnection(oidc.id)).toEqual(oidc);
      expect(await store.listSsoConnections(saml.organizationId)).toEqual([saml]);
      expect(await store.listSsoConnections(oidc.organizationId)).toEqual([oidc]);
    },
  "findSsoConnection - null for an id no connection has, or one of another case": async ({
    store,
    storedConnection,
  }) => {
    const made = await storedConnection();
    expect(await store.findSsoConnection(newConnectionId())).toBeNull();
    expect(await store.findSsoConnection(swapCase(made.id))).toBeNull();
    expect(await store.findSsoConnection(made.id)).toEqual(made);
  },
  "findSsoConnection, listSsoConnections - return copies; the store keeps no reference to what it was given":
    async ({ store, connection }) => {
      const made = connection();
      const given = structuredClone(made);
      await store.createSsoConnection(given);
      given.domains.push(newDomain());
      given.saml?.certificates.push("forged");
      given.defaultRole = "owner";
      const found = await store.findSsoConnection(made.id);
      found?.domains.pop();
      found?.saml?.certificates.pop();
      const [listed] = await store.listSsoConnections(made.organizationId);
      if (listed) listed.domains.length = 0;
      expect(await store.findSsoConnection(made.id)).toEqual(made);
      expect(await store.listSsoConnections(made.organizationId)).toEqual([made]);
    },
  "listSsoConnections - the organization's connections, oldest first; no other organization's": async ({
    store,
    storedConnection,
    oidcConnection,
  }) => {
    const organizationId = newOrganizationId();
    const middle = await storedConnection({ organizationId, createdAt: T0 + 2_000 });
    const newest = oidcConnection({ organizationId, createdAt: T0 + 3_000, updatedAt: T0 + 3_000 });
    expect(await store.createSsoConnection(structuredClone(newest))).toBe("created");
    const oldest = await storedConnection({ organizationId, createdAt: T0 + 1_000, updatedAt: NOW });
    const other = await storedConnection();
    expect(await store.listSsoConnections(organizationId)).toEqual([oldest, middle, newest]);
    expect(await store.listSsoConnections(other.organizationId)).toEqual([other]);
    expect(await store.listSsoConnections(newOrganizationId())).toEqual([]);
    expect(await store.listSsoConnections(swapCase(organizationId))).toEqual([]);
  },
  "createSsoConnection - domain-taken when a connection of the same organization names one of its domains; nothing stored":
    async ({ store, connection, storedConnection }) => {
      const first = await storedConnection();
      const [taken = ""] = first.domains;
      const second = connection({ organizationId: first.organizationId, domains: [newDomain(), taken] });
      expect(await store.createSsoConnection(structuredClone(second))).toBe("domain-taken");
      expect(await store.findSsoConnection(second.id)).toBeNull();
      expect(await store.listSsoConnections(first.organizationId)).toEqual([first]);
      expect(await store.findSsoConnectionByScimTokenHash(second.scimTokenHash ?? "")).toBeNull();
      // Nothing of the refused connection holds its other domain.
      await storedConnection({ domains: [second.domains[0] ?? ""] });
    },
  "createSsoConnection - domain-taken when a connection of another organization names one of its domains":
    async ({ store, connection, storedConnection }) => {
      const first = await storedConnection();
      const second = connection({ domains: [first.domains[1] ?? ""] });
      expect(await store.createSsoConnection(structuredClone(second))).toBe("domain-taken");
      expect(await store.findSsoConnection(second.id)).toBeNull();
      expect(await store.listSsoConnections(second.organizationId)).toEqual([]);
      expect(await store.findSsoConnection(first.id)).toEqual(first);
    },
  "createSsoConnection - connections naming other domains, or none, do not collide": async ({
    store,
    storedConnection,
  }) => {
    const organizationId = newOrganizationId();
    const first = await storedConnection({ organizationId, domains: [] });
    const second = await storedConnection({ organizationId, domains: [] });
    const third = await storedConnection({ organizationId });
    expect(await store.listSsoConnections(organizationId)).toEqual([first, second, third]);
  },
  "deleteSsoConnection - true and the connection is gone; false when absent or of another organization":
    async ({ store, storedConnection }) => {
      const organizationId = newOrganizationId();
      const gone = await storedConnection({ organizationId });
      const kept = await storedConnection({ organizationId });
      expect(await store.deleteSsoConnection(newOrganizationId(), gone.id)).toBe(false);
      expect(await store.deleteSsoConnection(kept.organizationId, newConnectionId())).toBe(false);
      expect(await store.findSsoConnection(gone.id)).toEqual(gone);
      expect(await store.deleteSsoConnection(organizationId, gone.id)).toBe(true);
      expect(await store.findSsoConnection(gone.id)).toBeNull();
      expect(await store.findSsoConnectionByScimTokenHash(gone.scimTokenHash ?? "")).toBeNull();
      expect(await store.listSsoConnections(organizationId)).toEqual([kept]);
      expect(await store.updateSsoConnection(organizationId, gone.id, { updatedAt: NOW })).toBeNull();
      expect(await store.deleteSsoConnection(organizationId, gone.id)).toBe(false);
      expect(await store.findSsoConnection(kept.id)).toEqual(kept);
    },
  "deleteSsoConnection - its domains are free for another connection; its organization's claims stay":
    async ({ store, routedConnection, storedConnection, oidcConnection }) => {
      const { connection: gone, claims } = await routedConnection();
      const [first = "", second = ""] = gone.domains;
      expect(await store.deleteSsoConnection(gone.organizationId, gone.id)).toBe(true);
      expect(await store.findSsoRoute(first)).toBeNull();
      expect(await store.listSsoDomains(gone.organizationId)).toEqual(byDomain(claims));
      const successor = oidcConnection({ organizationId: gone.organizationId, domains: [first] });
      expect(await store.createSsoConnection(structuredClone(successor))).toBe("created");
      expect(await store.findSsoRoute(first)).toEqual({ connection: successor, domain: claims[0] });
      // Another organization's connection may name the other; it routes nothing for it.
      await storedConnection({ domains: [second] });
      expect(await store.findSsoRoute(second)).toBeNull();
    },
};

/** The tests of `updateSsoConnection` and `findSsoConnectionByScimTokenHash`. */
const UPDATE_TESTS: SsoTests = {
  "updateSsoConnection - changes the given fields only: the connection as it is now; other connections stay":
    async ({ store, storedConnection }) => {
      const made = await storedConnection();
      const other = await storedConnection({ organizationId: made.organizationId });
      const renamed = { ...made, defaultRole: "admin", updatedAt: NOW };
      const patch = { defaultRole: "admin", updatedAt: NOW };
      expect(await store.updateSsoConnection(made.organizationId, made.id, patch)).toEqual(renamed);
      expect(await store.findSsoConnection(made.id)).toEqual(renamed);
      const next = {
        saml: { ...samlSettings(), certificates: ["z-cert", "a-cert", "m-cert"] },
        domains: [newDomain("z"), made.domains[1] ?? "", newDomain("a")],
        ssoRequired: true,
        idpInitiated: true,
        scimTokenHash: null,
        updatedAt: NOW + 1,
      };
      const patched = { ...renamed, ...next };
      expect(await store.updateSsoConnection(made.organizationId, made.id, structuredClone(next))).toEqual(
        patched,
      );
      expect(await store.findSsoConnection(made.id)).toEqual(patched);
      const touched = { ...patched, updatedAt: NOW + 2 };
      expect(await store.updateSsoConnection(made.organizationId, made.id, { updatedAt: NOW + 2 })).toEqual(
        touched,
      );
      expect(await store.listSsoConnections(made.organizationId)).toEqual([touched, other]);
    },
  "updateSsoConnection - replaces an OpenID Connect connection's settings whole, its sealed secret included":
    async ({ store, oidcConnection }) => {
      const made = oidcConnection({ scimTokenHash: null });
      await store.createSsoConnection(structuredClone(made));
      const patch = { oidc: oidcSettings(), scimTokenHash: newHash(), updatedAt: NOW };
      const patched = { ...made, ...patch };
      expect(await store.updateSsoConnection(made.organizationId, made.id, structuredClone(patch))).toEqual(
        patched,
      );
      expect(await store.findSsoConnection(made.id)).toEqual(patched);
    },
  "updateSsoConnection - null for an unknown id, or one of another organization or case; nothing changes":
    async ({ store, storedConnection }) => {
      const made = await storedConnection();
      const patch = { defaultRole: "owner", domains: [], ssoRequired: true, updatedAt: NOW };
      expect(await store.updateSsoConnection(made.organizationId, newConnectionId(), patch)).toBeNull();
      expect(await store.updateSsoConnection(newOrganizationId(), made.id, patch)).toBeNull();
      expect(await store.updateSsoConnection(made.organizationId, swapCase(made.id), patch)).toBeNull();
      expect(await store.findSsoConnection(made.id)).toEqual(made);
    },
  "updateSsoConnection - domain-taken when another connection, of any organization, names a new domain; nothing changes":
    async ({ store, storedConnection }) => {
      const made = await storedConnection();
      const sibling = await storedConnection({ organizationId: made.organizationId });
      const stranger = await storedConnection();
      for (const taken of [sibling.domains[0] ?? "", stranger.domains[1] ?? ""]) {
        const patch = { defaultRole: "owner", domains: [newDomain(), taken], updatedAt: NOW };
        expect(await store.updateSsoConnection(made.organizationId, made.id, patch)).toBe("domain-taken");
      }
      for (const kept of [made, sibling, stranger])
        expect(await store.findSsoConnection(kept.id)).toEqual(kept);
    },
  "updateSsoConnection - a connection keeps, reorders or drops its own domains; a dropped one is free":
    async ({ store, storedConnection }) => {
      const made = await storedConnection();
      const [first = "", second = ""] = made.domains;
      const added = newDomain();
      const reordered = { ...made, domains: [second, added, first], updatedAt: NOW };
      const patch = { domains: [second, added, first], updatedAt: NOW };
      expect(await store.updateSsoConnection(made.organizationId, made.id, patch)).toEqual(reordered);
      const kept = { ...reordered, ssoRequired: true, updatedAt: NOW + 1 };
      const same = { domains: reordered.domains, ssoRequired: true, updatedAt: NOW + 1 };
      expect(await store.updateSsoConnection(made.organizationId, made.id, same)).toEqual(kept);
      const dropped = { ...kept, domains: [added], updatedAt: NOW + 2 };
      const drop = { domains: [added], updatedAt: NOW + 2 };
      expect(await store.updateSsoConnection(made.organizationId, made.id, drop)).toEqual(dropped);
      await storedConnection({ domains: [first, second] });
      expect(await store.findSsoConnection(made.id)).toEqual(dropped);
    },
  "findSsoConnectionByScimTokenHash - the connection with this hash; null for another hash or case": async ({
    store,
    storedConnection,
  }) => {
    const made = await storedConnection();
    const other = await storedConnection({ organizationId: made.organizationId });
    const hash = made.scimTokenHash ?? "";
    expect(await store.findSsoConnectionByScimTokenHash(hash)).toEqual(made);
    expect(await store.findSsoConnectionByScimTokenHash(other.scimTokenHash ?? "")).toEqual(other);
    expect(await store.findSsoConnectionByScimTokenHash(newHash())).toBeNull();
    expect(await store.findSsoConnectionByScimTokenHash(swapCase(hash))).toBeNull();
    expect(await store.findSsoConnectionByScimTokenHash("")).toBeNull();
  },
  "findSsoConnectionByScimTokenHash - follows updates: the new hash finds it, the old one nothing; none once set null":
    async ({ store, storedConnection }) => {
      const made = await storedConnection();
      const old = made.scimTokenHash ?? "";
      const scimTokenHash = newHash();
      const rotated = { ...made, scimTokenHash, updatedAt: NOW };
      await store.updateSsoConnection(made.organizationId, made.id, { scimTokenHash, updatedAt: NOW });
      expect(await store.findSsoConnectionByScimTokenHash(old)).toBeNull();
      expect(await store.findSsoConnectionByScimTokenHash(scimTokenHash)).toEqual(rotated);
      // A patch without the hash keeps it.
      await store.updateSsoConnection(made.organizationId, made.id, { defaultRole: "guest", updatedAt: NOW });
      const renamed = { ...rotated, defaultRole: "guest" };
      expect(await store.findSsoConnectionByScimTokenHash(scimTokenHash)).toEqual(renamed);
      await store.updateSsoConnection(made.organizationId, made.id, { scimTokenHash: null, updatedAt: NOW });
      expect(await store.findSsoConnectionByScimTokenHash(scimTokenHash)).toBeNull();
      expect(await store.findSsoConnection(made.id)).toEqual({ ...renamed, scimTokenHash: null });
    },
};

/**
 * The executable contract of `SsoStore` (see its TSDoc in @portcullis/core). The tests make their
 * own random organizations, ids and domains, so they may share a store (a Redis key prefix or SQL
 * schema) with other tests: none expects an empty store. `useSsoAssertion`'s `expiresAt` is set
 * by the store's clock (the fixture's `now`, else `Date.now`); one test lets a second pass on it
 * (`advance`, else a real wait). Where the port's TSDoc leaves a point open, the suite reads it so:
 * - Ids, domains and hashes match byte for byte: one of another letter case is another (a
 *   case-insensitive SQL collation fails the suite). Domains are given lowercase (the plugin
 *   lowercases them), so no test stores two domains differing only in case.
 * - "Oldest first" is by `createdAt`, not by the order of creation; ties are left open.
 * - "In order of name" is by `domain`; the tests use names that sort alike in every collation.
 * - A domain's route carries the organization's claim as stored (its `verifiedAt` included).
 * - Claims are made unverified (`verifiedAt` null); one given as verified is left open.
 * - Left open: which of "not-found" and "taken" `verifySsoDomain` answers an organization that has
 *   not claimed a domain another one has verified; whether `removeOrganizationSso` forgets its
 *   connections' used assertions (their ids are never used again); whether a used assertion is
 *   remembered past its `expiresAt`; `createSsoConnection` of an id already stored.
 */
export const runSsoStoreSuite = defineStoreSuite("SsoStore", ssoContext, {
  connections: CONNECTION_TESTS,
  updateSsoConnection: UPDATE_TESTS,
  domains: SSO_DOMAIN_TESTS,
  findSsoRoute: SSO_ROUTE_TESTS,
  useSsoAssertion: SSO_ASSERTION_TESTS,
  removeOrganizationSso: SSO_REMOVAL_TESTS,
  concurrency: SSO_CONCURRENCY_TESTS,
});
