// The SsoStore conformance tests of the domain claims: claimSsoDomain, listSsoDomains,
// findSsoDomain, verifySsoDomain and releaseSsoDomain (SSO_DOMAIN_TESTS); findSsoRoute
// (SSO_ROUTE_TESTS).
import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import {
  byDomain,
  HOUR,
  NOW,
  newDomain,
  newOrganizationId,
  type SsoTests,
  swapCase,
  T0,
} from "./sso-store-context.js";

/** The tests of the domain claims. */
export const SSO_DOMAIN_TESTS: SsoTests = {
  "claimSsoDomain - stores the claim as given; findSsoDomain reads it back, a copy": async ({
    store,
    claim,
  }) => {
    const made = claim(newOrganizationId(), newDomain(), { createdAt: T0 + 7 });
    const given = structuredClone(made);
    expect(await store.claimSsoDomain(given)).toBe("created");
    given.verifiedAt = NOW;
    const found = await store.findSsoDomain(made.organizationId, made.domain);
    expect(found).toEqual(made);
    if (found) found.verificationToken = "changed";
    expect(await store.findSsoDomain(made.organizationId, made.domain)).toEqual(made);
  },
  "findSsoDomain - null for a domain not claimed, another organization's claim, or another case": async ({
    store,
    claimedDomain,
  }) => {
    const made = await claimedDomain(newOrganizationId());
    expect(await store.findSsoDomain(made.organizationId, newDomain())).toBeNull();
    expect(await store.findSsoDomain(newOrganizationId(), made.domain)).toBeNull();
    expect(await store.findSsoDomain(made.organizationId, made.domain.toUpperCase())).toBeNull();
    expect(await store.findSsoDomain(swapCase(made.organizationId), made.domain)).toBeNull();
  },
  "claimSsoDomain - exists when this organization has claimed it already; the first claim stays": async ({
    store,
    claim,
    verifiedDomain,
  }) => {
    const organizationId = newOrganizationId();
    const first = await verifiedDomain(organizationId);
    const again = claim(organizationId, first.domain, { createdAt: T0 + HOUR });
    expect(await store.claimSsoDomain(again)).toBe("exists");
    expect(await store.findSsoDomain(organizationId, first.domain)).toEqual(first);
    expect(await store.listSsoDomains(organizationId)).toEqual([first]);
  },
  "claimSsoDomain - several organizations may claim one domain, each its own record": async ({
    store,
    claimedDomain,
  }) => {
    const domain = newDomain();
    const first = await claimedDomain(newOrganizationId(), domain);
    const second = await claimedDomain(newOrganizationId(), domain);
    expect(await store.findSsoDomain(first.organizationId, domain)).toEqual(first);
    expect(await store.findSsoDomain(second.organizationId, domain)).toEqual(second);
    expect(await store.listSsoDomains(second.organizationId)).toEqual([second]);
  },
  "listSsoDomains - the organization's claims, verified or not, in order of name; no other's": async ({
    store,
    claimedDomain,
    verifiedDomain,
  }) => {
    const organizationId = newOrganizationId();
    const tail = `${randomBytes(6).toString("hex")}.example.com`;
    const c = await claimedDomain(organizationId, `c${tail}`);
    const a = await claimedDomain(organizationId, `a${tail}`);
    const d = await verifiedDomain(organizationId, `d${tail}`);
    const b = await verifiedDomain(organizationId, `b${tail}`);
    await claimedDomain(newOrganizationId(), `bb${tail}`);
    await claimedDomain(newOrganizationId(), a.domain);
    expect(await store.listSsoDomains(organizationId)).toEqual([a, b, c, d]);
    expect(await store.listSsoDomains(newOrganizationId())).toEqual([]);
  },
  "verifySsoDomain - marks the claim verified at `at`: the record as it is now": async ({
    store,
    claimedDomain,
  }) => {
    const made = await claimedDomain(newOrganizationId());
    const verified = { ...made, verifiedAt: NOW + 42 };
    expect(await store.verifySsoDomain(made.organizationId, made.domain, NOW + 42)).toEqual(verified);
    expect(await store.findSsoDomain(made.organizationId, made.domain)).toEqual(verified);
    expect(await store.listSsoDomains(made.organizationId)).toEqual([verified]);
  },
  "verifySsoDomain - already verified: verifiedAt is kept": async ({ store, verifiedDomain }) => {
    const made = await verifiedDomain(newOrganizationId());
    expect(await store.verifySsoDomain(made.organizationId, made.domain, NOW + HOUR)).toEqual(made);
    expect(await store.findSsoDomain(made.organizationId, made.domain)).toEqual(made);
  },
  "verifySsoDomain - not-found when this organization has not claimed it (another has, unverified)": async ({
    store,
    claimedDomain,
  }) => {
    const organizationId = newOrganizationId();
    expect(await store.verifySsoDomain(organizationId, newDomain(), NOW)).toBe("not-found");
    const other = await claimedDomain(newOrganizationId());
    expect(await store.verifySsoDomain(organizationId, other.domain, NOW)).toBe("not-found");
    expect(await store.findSsoDomain(organizationId, other.domain)).toBeNull();
    expect(await store.findSsoDomain(other.organizationId, other.domain)).toEqual(other);
    const mine = await claimedDomain(organizationId);
    expect(await store.verifySsoDomain(organizationId, mine.domain.toUpperCase(), NOW)).toBe("not-found");
    expect(await store.findSsoDomain(organizationId, mine.domain)).toEqual(mine);
  },
  "verifySsoDomain - taken when another organization has it verified; the claim stays unverified": async ({
    store,
    claimedDomain,
    verifiedDomain,
  }) => {
    const winner = await verifiedDomain(newOrganizationId());
    const loser = await claimedDomain(newOrganizationId(), winner.domain);
    expect(await store.verifySsoDomain(loser.organizationId, winner.domain, NOW + 1)).toBe("taken");
    expect(await store.findSsoDomain(loser.organizationId, winner.domain)).toEqual(loser);
    expect(await store.findSsoDomain(winner.organizationId, winner.domain)).toEqual(winner);
  },
  "verifySsoDomain - once the verifying organization releases its claim, another may verify it": async ({
    store,
    claimedDomain,
    verifiedDomain,
  }) => {
    const first = await verifiedDomain(newOrganizationId());
    const second = await claimedDomain(newOrganizationId(), first.domain);
    expect(await store.releaseSsoDomain(first.organizationId, first.domain)).toBe(true);
    const verified = { ...second, verifiedAt: NOW + 1 };
    expect(await store.verifySsoDomain(second.organizationId, first.domain, NOW + 1)).toEqual(verified);
    // The first organization may claim it anew, but not verify it.
    const again = await claimedDomain(first.organizationId, first.domain);
    expect(await store.verifySsoDomain(first.organizationId, first.domain, NOW + 2)).toBe("taken");
    expect(await store.findSsoDomain(first.organizationId, first.domain)).toEqual(again);
  },
  "releaseSsoDomain - drops the organization's claim; false when there was none; others' claims stay":
    async ({ store, claimedDomain, verifiedDomain }) => {
      const organizationId = newOrganizationId();
      const released = await verifiedDomain(organizationId);
      const kept = await claimedDomain(organizationId);
      const other = await claimedDomain(newOrganizationId(), released.domain);
      expect(await store.releaseSsoDomain(newOrganizationId(), released.domain)).toBe(false);
      expect(await store.releaseSsoDomain(organizationId, released.domain.toUpperCase())).toBe(false);
      expect(await store.releaseSsoDomain(organizationId, released.domain)).toBe(true);
      expect(await store.findSsoDomain(organizationId, released.domain)).toBeNull();
      expect(await store.listSsoDomains(organizationId)).toEqual([kept]);
      expect(await store.findSsoDomain(other.organizationId, other.domain)).toEqual(other);
      expect(await store.releaseSsoDomain(organizationId, released.domain)).toBe(false);
      expect(await store.verifySsoDomain(organizationId, released.domain, NOW)).toBe("not-found");
      // Claimed anew, it starts unverified.
      await claimedDomain(organizationId, released.domain);
    },
};

/** The tests of `findSsoRoute`. */
export const SSO_ROUTE_TESTS: SsoTests = {
  "findSsoRoute - the connection naming the domain, with its organization's verified claim": async ({
    store,
    routedConnection,
  }) => {
    const { connection, claims } = await routedConnection();
    for (const [index, domain] of connection.domains.entries())
      expect(await store.findSsoRoute(domain)).toEqual({ connection, domain: claims[index] });
    const route = await store.findSsoRoute(connection.domains[0] ?? "");
    route?.connection.domains.pop();
    if (route) route.domain.verifiedAt = null;
    expect(await store.findSsoRoute(connection.domains[0] ?? "")).toEqual({ connection, domain: claims[0] });
  },
  "findSsoRoute - null while its organization has the domain only claimed, or not at all": async ({
    store,
    storedConnection,
    claimedDomain,
  }) => {
    const connection = await storedConnection();
    const [claimed = "", unclaimed = ""] = connection.domains;
    await claimedDomain(connection.organizationId, claimed);
    expect(await store.findSsoRoute(claimed)).toBeNull();
    expect(await store.findSsoRoute(unclaimed)).toBeNull();
    expect(await store.findSsoRoute(newDomain())).toBeNull();
  },
  "findSsoRoute - null when the domain is verified only by another organization": async ({
    store,
    storedConnection,
    claimedDomain,
    verifiedDomain,
  }) => {
    const connection = await storedConnection();
    const [domain = "", other = ""] = connection.domains;
    await verifiedDomain(newOrganizationId(), domain);
    await claimedDomain(connection.organizationId, domain);
    await verifiedDomain(newOrganizationId(), other);
    expect(await store.findSsoRoute(domain)).toBeNull();
    expect(await store.findSsoRoute(other)).toBeNull();
  },
  "findSsoRoute - null for a verified domain no connection names": async ({
    store,
    storedConnection,
    verifiedDomain,
  }) => {
    const connection = await storedConnection();
    const unnamed = await verifiedDomain(connection.organizationId);
    expect(await store.findSsoRoute(unnamed.domain)).toBeNull();
  },
  "findSsoRoute - domains match byte for byte": async ({ store, routedConnection }) => {
    const { connection } = await routedConnection();
    const [domain = ""] = connection.domains;
    expect(await store.findSsoRoute(domain.toUpperCase())).toBeNull();
    expect(await store.findSsoRoute(`${domain}.`)).toBeNull();
  },
  "findSsoRoute - follows updates: a domain dropped routes nothing, one added and verified routes": async ({
    store,
    routedConnection,
    verifiedDomain,
  }) => {
    const { connection, claims } = await routedConnection();
    const [dropped = "", kept = ""] = connection.domains;
    const added = newDomain();
    const patch = { domains: [kept, added], defaultRole: "editor", updatedAt: NOW };
    const updated = { ...connection, ...patch };
    expect(await store.updateSsoConnection(connection.organizationId, connection.id, patch)).toEqual(updated);
    expect(await store.findSsoRoute(dropped)).toBeNull();
    expect(await store.findSsoRoute(kept)).toEqual({ connection: updated, domain: claims[1] });
    expect(await store.findSsoRoute(added)).toBeNull();
    const claim = await verifiedDomain(connection.organizationId, added);
    expect(await store.findSsoRoute(added)).toEqual({ connection: updated, domain: claim });
  },
  "findSsoRoute - null once the claim is released (the connection keeps the name); back once verified anew":
    async ({ store, routedConnection, verifiedDomain }) => {
      const { connection, claims } = await routedConnection();
      const [released = "", kept = ""] = connection.domains;
      expect(await store.releaseSsoDomain(connection.organizationId, released)).toBe(true);
      expect(await store.findSsoRoute(released)).toBeNull();
      expect(await store.findSsoRoute(kept)).toEqual({ connection, domain: claims[1] });
      expect(await store.findSsoConnection(connection.id)).toEqual(connection);
      const claim = await verifiedDomain(connection.organizationId, released);
      expect(await store.findSsoRoute(released)).toEqual({ connection, domain: claim });
    },
  "findSsoRoute - a domain verified for one organization routes to its connection, not another's claim":
    async ({ store, routedConnection, claimedDomain }) => {
      const { connection, claims } = await routedConnection();
      const [domain = ""] = connection.domains;
      await claimedDomain(newOrganizationId(), domain);
      expect(await store.findSsoRoute(domain)).toEqual({ connection, domain: claims[0] });
      expect(await store.listSsoDomains(connection.organizationId)).toEqual(byDomain(claims));
    },
};
