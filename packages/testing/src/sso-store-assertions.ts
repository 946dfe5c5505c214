// The SsoStore conformance tests of useSsoAssertion (SSO_ASSERTION_TESTS), removeOrganizationSso
// (SSO_REMOVAL_TESTS), and of the calls made at once (SSO_CONCURRENCY_TESTS).
import type { SsoConnectionRecord, SsoDomainRecord, SsoStore } from "@portcullis/core";
import { expect } from "vitest";
import {
  byDomain,
  HOUR,
  NOW,
  newAssertionId,
  newDomain,
  newOrganizationId,
  type SsoContext,
  type SsoTests,
  swapCase,
} from "./sso-store-context.js";
import { concurrently, elapse } from "./store-fixture.js";

/** The tests of `useSsoAssertion`. */
export const SSO_ASSERTION_TESTS: SsoTests = {
  "useSsoAssertion - true the first time, false after, per connection and assertion id": async ({
    store,
    storedConnection,
    storeNow,
  }) => {
    const expiresAt = (await storeNow()) + HOUR;
    const [first, second] = [await storedConnection(), await storedConnection()];
    const [id, other] = [newAssertionId(), newAssertionId()];
    expect(await store.useSsoAssertion(first.id, id, expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(first.id, id, expiresAt)).toBe(false);
    expect(await store.useSsoAssertion(first.id, id, expiresAt + HOUR)).toBe(false);
    // The same id from another connection (another identity provider) is another assertion.
    expect(await store.useSsoAssertion(second.id, id, expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(second.id, id, expiresAt)).toBe(false);
    expect(await store.useSsoAssertion(first.id, other, expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(first.id, id, expiresAt)).toBe(false);
  },
  "useSsoAssertion - ids match byte for byte": async ({ store, storedConnection, storeNow }) => {
    const expiresAt = (await storeNow()) + HOUR;
    const connection = await storedConnection();
    const id = newAssertionId();
    expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(connection.id, swapCase(id), expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(swapCase(connection.id), id, expiresAt)).toBe(true);
    expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(false);
  },
  "useSsoAssertion - still used a second before its expiresAt": async ({
    store,
    fixture,
    storedConnection,
    storeNow,
  }) => {
    const expiresAt = (await storeNow()) + 2_000;
    const connection = await storedConnection();
    const id = newAssertionId();
    expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(true);
    await elapse(fixture, 1_000);
    expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(false);
  },
  "useSsoAssertion - an expiresAt already reached: true the first time, no rejection": async ({
    store,
    storedConnection,
    storeNow,
  }) => {
    const now = await storeNow();
    const connection = await storedConnection();
    expect(await store.useSsoAssertion(connection.id, newAssertionId(), now - 1_000)).toBe(true);
    expect(await store.useSsoAssertion(connection.id, newAssertionId(), now)).toBe(true);
  },
};

/** Expects every record of `connection`'s organization gone: connections, claims and routes. */
async function expectRemoved(store: SsoStore, connection: SsoConnectionRecord): Promise<void> {
  const { organizationId, id } = connection;
  expect(await store.listSsoConnections(organizationId)).toEqual([]);
  expect(await store.findSsoConnection(id)).toBeNull();
  expect(await store.findSsoConnectionByScimTokenHash(connection.scimTokenHash ?? "")).toBeNull();
  expect(await store.updateSsoConnection(organizationId, id, { updatedAt: NOW })).toBeNull();
  expect(await store.deleteSsoConnection(organizationId, id)).toBe(false);
  expect(await store.listSsoDomains(organizationId)).toEqual([]);
  for (const domain of connection.domains) {
    expect(await store.findSsoDomain(organizationId, domain)).toBeNull();
    expect(await store.findSsoRoute(domain)).toBeNull();
  }
}

/** The tests of `removeOrganizationSso`. */
export const SSO_REMOVAL_TESTS: SsoTests = {
  "removeOrganizationSso - removes the organization's connections, claims and routes; others' stay": async ({
    store,
    routedConnection,
    storedConnection,
    claimedDomain,
  }) => {
    const { connection: removed } = await routedConnection();
    const sibling = await storedConnection({ organizationId: removed.organizationId });
    const unnamed = await claimedDomain(removed.organizationId);
    const { connection: kept, claims } = await routedConnection();
    const keptSibling = await storedConnection({ organizationId: kept.organizationId, domains: [] });
    const keptClaim = await claimedDomain(kept.organizationId, removed.domains[0] ?? "");
    await store.removeOrganizationSso(removed.organizationId);
    await expectRemoved(store, removed);
    await expectRemoved(store, sibling);
    expect(await store.findSsoDomain(removed.organizationId, unnamed.domain)).toBeNull();
    expect(await store.listSsoConnections(kept.organizationId)).toEqual([kept, keptSibling]);
    expect(await store.listSsoDomains(kept.organizationId)).toEqual(byDomain([...claims, keptClaim]));
    for (const [index, domain] of kept.domains.entries())
      expect(await store.findSsoRoute(domain)).toEqual({ connection: kept, domain: claims[index] });
    expect(await store.findSsoConnectionByScimTokenHash(kept.scimTokenHash ?? "")).toEqual(kept);
  },
  "removeOrganizationSso - frees its domains: another organization may name them and verify them": async ({
    store,
    routedConnection,
    storedConnection,
    claimedDomain,
  }) => {
    const { connection: removed } = await routedConnection();
    const [domain = ""] = removed.domains;
    const waiting = await claimedDomain(newOrganizationId(), domain);
    expect(await store.verifySsoDomain(waiting.organizationId, domain, NOW)).toBe("taken");
    await store.removeOrganizationSso(removed.organizationId);
    const verified = { ...waiting, verifiedAt: NOW + 1 };
    expect(await store.verifySsoDomain(waiting.organizationId, domain, NOW + 1)).toEqual(verified);
    const successor = await storedConnection({ organizationId: waiting.organizationId, domains: [domain] });
    expect(await store.findSsoRoute(domain)).toEqual({ connection: successor, domain: verified });
  },
  "removeOrganizationSso - other organizations' used assertions stay used; an organization with nothing is fine":
    async ({ store, storedConnection, storeNow }) => {
      const expiresAt = (await storeNow()) + HOUR;
      const [removed, kept] = [await storedConnection(), await storedConnection()];
      const id = newAssertionId();
      for (const connection of [removed, kept])
        expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(true);
      await store.removeOrganizationSso(removed.organizationId);
      expect(await store.useSsoAssertion(kept.id, id, expiresAt)).toBe(false);
      await expect(store.removeOrganizationSso(newOrganizationId())).resolves.toBeUndefined();
      await expect(store.removeOrganizationSso(removed.organizationId)).resolves.toBeUndefined();
      expect(await store.findSsoConnection(kept.id)).toEqual(kept);
    },
};

/** How many calls each concurrency test makes at once. */
const AT_ONCE = 20;

/**
 * Expects at most one of `connections` (as they were before the race) to name `domain` now, the
 * others unchanged: the one that does, or null. With none and `free`, a new connection may name
 * `domain`.
 */
async function expectOneHolder(
  context: SsoContext,
  connections: SsoConnectionRecord[],
  domain: string,
  free = true,
) {
  const { store, storedConnection } = context;
  const now = await Promise.all(connections.map((connection) => store.findSsoConnection(connection.id)));
  const holders = now.filter((connection) => connection?.domains.includes(domain));
  expect(holders.length).toBeLessThanOrEqual(1);
  for (const [index, connection] of now.entries())
    if (!connection?.domains.includes(domain)) expect(connection).toEqual(connections[index] ?? null);
  if (holders.length === 0 && free) await storedConnection({ domains: [domain] });
  return holders[0] ?? null;
}

/** The tests of calls made at once: at most one of those naming one domain or assertion wins. */
export const SSO_CONCURRENCY_TESTS: SsoTests = {
  "createSsoConnection - 20 at once naming one domain: exactly one created, the others store nothing": async (
    context,
  ) => {
    const { store, connection } = context;
    const domain = newDomain();
    const organizationId = newOrganizationId();
    const made = Array.from({ length: AT_ONCE }, (_, index) =>
      connection({ domains: [newDomain(), domain], ...(index % 2 ? { organizationId } : {}) }),
    );
    const results = await concurrently(AT_ONCE, (index) =>
      store.createSsoConnection(structuredClone(made[index] as SsoConnectionRecord)),
    );
    expect(results.filter((result) => result === "created")).toHaveLength(1);
    expect(results.filter((result) => result === "domain-taken")).toHaveLength(AT_ONCE - 1);
    const winner = made[results.indexOf("created")];
    for (const one of made)
      expect(await store.findSsoConnection(one.id)).toEqual(one === winner ? one : null);
    // The refused connections' own domains are free.
    const others = made.filter((one) => one !== winner).map((one) => one.domains[0] ?? "");
    await context.storedConnection({ domains: others });
  },
  "updateSsoConnection - 20 connections at once adding one domain: at most one gets it": async (context) => {
    const { store, storedConnection } = context;
    const domain = newDomain();
    const organizationId = newOrganizationId();
    const stored: SsoConnectionRecord[] = [];
    for (let index = 0; index < AT_ONCE; index++)
      stored.push(await storedConnection(index % 2 ? { organizationId } : {}));
    const results = await concurrently(AT_ONCE, (index) => {
      const { organizationId: owner, id, domains } = stored[index] as SsoConnectionRecord;
      return store.updateSsoConnection(owner, id, { domains: [...domains, domain], updatedAt: NOW });
    });
    const updated = results.filter((result) => result !== "domain-taken");
    expect(updated.length).toBeLessThanOrEqual(1);
    for (const result of updated) expect(result).not.toBeNull();
    const holder = await expectOneHolder(context, stored, domain);
    expect(holder).toEqual(updated[0] ?? null);
  },
  "createSsoConnection, updateSsoConnection - 10 of each at once naming one domain: at most one succeeds":
    async (context) => {
      const { store, connection, storedConnection } = context;
      const domain = newDomain();
      const stored: SsoConnectionRecord[] = [];
      for (let index = 0; index < AT_ONCE / 2; index++) stored.push(await storedConnection());
      const made = stored.map(() => connection({ domains: [domain] }));
      const results = await concurrently(AT_ONCE, async (index) => {
        const existing = stored[index >> 1] as SsoConnectionRecord;
        if (index % 2)
          return store.createSsoConnection(structuredClone(made[index >> 1] as SsoConnectionRecord));
        const patch = { domains: [domain], updatedAt: NOW };
        const result = await store.updateSsoConnection(existing.organizationId, existing.id, patch);
        return typeof result === "object" && result !== null ? "updated" : result;
      });
      expect(
        results.filter((result) => result === "created" || result === "updated").length,
      ).toBeLessThanOrEqual(1);
      const created = made.filter((_, index) => results[index * 2 + 1] === "created");
      const found = await Promise.all(made.map((one) => store.findSsoConnection(one.id)));
      expect(found.filter((one) => one !== null)).toEqual(created);
      const holder = await expectOneHolder(context, stored, domain, created.length === 0);
      expect(results.includes("updated")).toBe(holder !== null);
    },
  "claimSsoDomain - 20 at once by one organization: one created, the others exists": async ({
    store,
    claim,
  }) => {
    const organizationId = newOrganizationId();
    const domain = newDomain();
    const made = Array.from({ length: AT_ONCE }, () => claim(organizationId, domain));
    const results = await concurrently(AT_ONCE, (index) =>
      store.claimSsoDomain(structuredClone(made[index] as SsoDomainRecord)),
    );
    expect(results.filter((result) => result === "created")).toHaveLength(1);
    expect(await store.findSsoDomain(organizationId, domain)).toEqual(made[results.indexOf("created")]);
  },
  "verifySsoDomain - 20 organizations at once, all having claimed one domain: exactly one verified": async ({
    store,
    claimedDomain,
  }) => {
    const domain = newDomain();
    const claims = await Promise.all(
      Array.from({ length: AT_ONCE }, () => claimedDomain(newOrganizationId(), domain)),
    );
    const results = await concurrently(AT_ONCE, (index) =>
      store.verifySsoDomain(claims[index]?.organizationId ?? "", domain, NOW + index),
    );
    expect(results.filter((result) => result === "taken")).toHaveLength(AT_ONCE - 1);
    const winner = results.findIndex((result) => result !== "taken");
    expect(results[winner]).toEqual({ ...claims[winner], verifiedAt: NOW + winner });
    for (const [index, claim] of claims.entries())
      expect(await store.findSsoDomain(claim.organizationId, domain)).toEqual(
        results[index] === "taken" ? claim : results[index],
      );
  },
  "useSsoAssertion - 20 at once with one id: exactly one true": async ({
    store,
    storedConnection,
    storeNow,
  }) => {
    const expiresAt = (await storeNow()) + HOUR;
    const connection = await storedConnection();
    const id = newAssertionId();
    const results = await concurrently(AT_ONCE, () => store.useSsoAssertion(connection.id, id, expiresAt));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.useSsoAssertion(connection.id, id, expiresAt)).toBe(false);
  },
};
