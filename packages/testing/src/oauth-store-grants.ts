// The OAuthStore conformance tests of the grants: createOAuthGrant, getOAuthGrant and
// rotateOAuthRefresh (OAUTH_GRANT_TESTS); revokeOAuthGrant and revokeUserOAuthGrants
// (OAUTH_REVOCATION_TESTS).
import type { OAuthGrantRecord, OAuthStore } from "@portcullis/core";
import { expect } from "vitest";
import {
  GRANT_ENDS,
  HOUR,
  NOW,
  newClientId,
  newGrantId,
  newHash,
  newUserId,
  type OAuthTests,
  swapCase,
  T0,
} from "./oauth-store-context.js";
import { concurrently } from "./store-fixture.js";

const ABSENT = { outcome: "absent" } as const;
const REUSED = { outcome: "reused" } as const;

/** The live refresh hash of a grant the tests made with one. */
const hashOf = (grant: OAuthGrantRecord) => grant.refreshHash ?? "";

/** Rotates `grant`'s live hash to a new one and expects it rotated: the new hash. */
async function rotated(store: OAuthStore, grant: OAuthGrantRecord, from: string, now = NOW) {
  const next = newHash();
  expect(await store.rotateOAuthRefresh(grant.grantId, from, next, now)).toEqual({
    outcome: "rotated",
    grant: { ...grant, refreshHash: next },
  });
  return next;
}

/** The tests of `createOAuthGrant`, `getOAuthGrant` and `rotateOAuthRefresh`. */
export const OAUTH_GRANT_TESTS: OAuthTests = {
  "createOAuthGrant - stores the grant as given; getOAuthGrant reads every field back, a copy": async ({
    store,
    storedClient,
    grant,
  }) => {
    const { clientId } = await storedClient({ grantTypes: ["authorization_code", "client_credentials"] });
    const forUser = grant(clientId, { scopes: ["offline_access", "openid", "email"] });
    const forClient = grant(clientId, {
      userId: null,
      authTime: null,
      refreshHash: null,
      resources: [],
      scopes: ["api.read"],
    });
    for (const made of [forUser, forClient]) {
      const given = structuredClone(made);
      expect(await store.createOAuthGrant(given)).toBe(true);
      given.scopes.push("admin");
      const read = await store.getOAuthGrant(made.grantId, NOW);
      expect(read).toEqual(made);
      read?.resources.push("https://evil.example.com/");
      expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual(made);
    }
  },
  "getOAuthGrant - null for an id no grant has": async ({ store, storedGrant }) => {
    await storedGrant();
    expect(await store.getOAuthGrant(newGrantId(), NOW)).toBeNull();
  },
  "getOAuthGrant, rotateOAuthRefresh - ids and hashes match byte for byte, case included": async ({
    store,
    storedGrant,
  }) => {
    const made = await storedGrant();
    expect(await store.getOAuthGrant(swapCase(made.grantId), NOW)).toBeNull();
    expect(await store.rotateOAuthRefresh(swapCase(made.grantId), hashOf(made), newHash(), NOW)).toEqual(
      ABSENT,
    );
    expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual(made);
    expect(await store.rotateOAuthRefresh(made.grantId, swapCase(hashOf(made)), newHash(), NOW)).toEqual(
      REUSED,
    );
  },
  "getOAuthGrant - the grant before expiresAt; null from expiresAt on, revoked or not": async ({
    store,
    storedGrant,
  }) => {
    const live = await storedGrant();
    const revoked = await storedGrant({ expiresAt: GRANT_ENDS + HOUR });
    await store.revokeOAuthGrant(revoked.grantId, { clientId: revoked.clientId, expiresAt: GRANT_ENDS }, NOW);
    expect(await store.getOAuthGrant(live.grantId, GRANT_ENDS - 1)).toEqual(live);
    expect(await store.getOAuthGrant(live.grantId, GRANT_ENDS)).toBeNull();
    expect(await store.getOAuthGrant(live.grantId, GRANT_ENDS + 1)).toBeNull();
    const revokedEnds = GRANT_ENDS + HOUR;
    expect(await store.getOAuthGrant(revoked.grantId, revokedEnds - 1)).toEqual({
      ...revoked,
      revokedAt: NOW,
    });
    expect(await store.getOAuthGrant(revoked.grantId, revokedEnds)).toBeNull();
  },
  "createOAuthGrant - an id taken by a live grant: false, and the first grant is kept": async ({
    store,
    storedGrant,
    grant,
  }) => {
    const first = await storedGrant();
    const second = grant(first.clientId, { grantId: first.grantId, userId: newUserId(), scopes: ["all"] });
    expect(await store.createOAuthGrant(second)).toBe(false);
    expect(await store.getOAuthGrant(first.grantId, NOW)).toEqual(first);
  },
  "createOAuthGrant - an id taken by a revoked grant: false, and it stays revoked": async ({
    store,
    storedGrant,
    grant,
  }) => {
    const first = await storedGrant();
    expect(
      await store.revokeOAuthGrant(first.grantId, { clientId: first.clientId, expiresAt: T0 }, NOW),
    ).toBe(true);
    expect(await store.createOAuthGrant(grant(first.clientId, { grantId: first.grantId }))).toBe(false);
    expect(await store.getOAuthGrant(first.grantId, NOW)).toEqual({ ...first, revokedAt: NOW });
  },
  "createOAuthGrant - false when its client does not exist, and nothing is stored": async ({
    store,
    grant,
  }) => {
    const orphan = grant(newClientId());
    expect(await store.createOAuthGrant(orphan)).toBe(false);
    expect(await store.getOAuthGrant(orphan.grantId, NOW)).toBeNull();
    expect(await store.revokeUserOAuthGrants(orphan.userId ?? "", NOW)).toBe(0);
  },
  "createOAuthGrant - 20 at once with one id: exactly one stored": async ({ store, storedClient, grant }) => {
    const { clientId } = await storedClient();
    const grantId = newGrantId();
    const made = Array.from({ length: 20 }, () => grant(clientId, { grantId }));
    const results = await Promise.all(made.map((one) => store.createOAuthGrant(structuredClone(one))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.getOAuthGrant(grantId, NOW)).toEqual(made[results.indexOf(true)]);
  },
  "rotateOAuthRefresh - the live hash: rotated, with the grant as it is now; the next hash is then live":
    async ({ store, storedGrant }) => {
      const made = await storedGrant();
      const other = await storedGrant();
      const second = await rotated(store, made, hashOf(made));
      const third = await rotated(store, { ...made, refreshHash: second }, second, NOW + HOUR);
      expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual({ ...made, refreshHash: third });
      expect(await store.getOAuthGrant(other.grantId, NOW)).toEqual(other);
    },
  "rotateOAuthRefresh - an older hash of a live grant: reused, the grant is revoked at now": async ({
    store,
    storedGrant,
  }) => {
    const made = await storedGrant();
    const next = await rotated(store, made, hashOf(made));
    expect(await store.rotateOAuthRefresh(made.grantId, hashOf(made), newHash(), NOW + 5)).toEqual(REUSED);
    const revoked = await store.getOAuthGrant(made.grantId, NOW + 10);
    expect(revoked).toEqual({ ...made, refreshHash: revoked?.refreshHash, revokedAt: NOW + 5 });
    // The live token of the revoked grant no longer rotates: the thief and the client both lose it.
    expect(await store.rotateOAuthRefresh(made.grantId, next, newHash(), NOW + 10)).toEqual(ABSENT);
    expect((await store.getOAuthGrant(made.grantId, NOW + 10))?.revokedAt).toBe(NOW + 5);
  },
  "rotateOAuthRefresh - a hash the grant never had: reused too": async ({ store, storedGrant }) => {
    const made = await storedGrant();
    expect(await store.rotateOAuthRefresh(made.grantId, newHash(), newHash(), NOW)).toEqual(REUSED);
    expect((await store.getOAuthGrant(made.grantId, NOW))?.revokedAt).toBe(NOW);
    expect(await store.rotateOAuthRefresh(made.grantId, hashOf(made), newHash(), NOW)).toEqual(ABSENT);
  },
  "rotateOAuthRefresh - absent, and nothing changed, for an unknown id, a revoked or an expired grant":
    async ({ store, storedGrant }) => {
      expect(await store.rotateOAuthRefresh(newGrantId(), newHash(), newHash(), NOW)).toEqual(ABSENT);
      const revoked = await storedGrant();
      await store.revokeOAuthGrant(
        revoked.grantId,
        { clientId: revoked.clientId, expiresAt: GRANT_ENDS },
        NOW,
      );
      for (const presented of [hashOf(revoked), newHash()])
        expect(await store.rotateOAuthRefresh(revoked.grantId, presented, newHash(), NOW + 1)).toEqual(
          ABSENT,
        );
      expect(await store.getOAuthGrant(revoked.grantId, NOW + 1)).toEqual({ ...revoked, revokedAt: NOW });
      const expired = await storedGrant();
      for (const at of [GRANT_ENDS, GRANT_ENDS + 1])
        for (const presented of [hashOf(expired), newHash()])
          expect(await store.rotateOAuthRefresh(expired.grantId, presented, newHash(), at)).toEqual(ABSENT);
    },
  "rotateOAuthRefresh - 20 at once with the live hash: one rotated, one reused (revoking), the rest absent":
    async ({ store, storedGrant }) => {
      const made = await storedGrant();
      const nextHashes = Array.from({ length: 20 }, () => newHash());
      const results = await concurrently(20, (index) =>
        store.rotateOAuthRefresh(made.grantId, hashOf(made), nextHashes[index] ?? "", NOW),
      );
      const outcomes = results.map((result) => result.outcome);
      expect(outcomes.filter((outcome) => outcome === "rotated")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "reused")).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "absent")).toHaveLength(18);
      const winner = outcomes.indexOf("rotated");
      const live = { ...made, refreshHash: nextHashes[winner] ?? "" };
      expect(results[winner]).toEqual({ outcome: "rotated", grant: live });
      expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual({ ...live, revokedAt: NOW });
    },
};

/** `create` and `revoke` of one new grant id started in the same tick, `create` first or not. */
async function race(store: OAuthStore, grant: OAuthGrantRecord, createFirst: boolean) {
  const create = () => store.createOAuthGrant(structuredClone(grant));
  const revoke = () =>
    store.revokeOAuthGrant(grant.grantId, { clientId: grant.clientId, expiresAt: grant.expiresAt }, NOW);
  if (createFirst) {
    const [created, revoked] = await Promise.all([create(), revoke()]);
    return { created, revoked };
  }
  const [revoked, created] = await Promise.all([revoke(), create()]);
  return { created, revoked };
}

/** The tests of `revokeOAuthGrant` (with the replayed-code race) and `revokeUserOAuthGrants`. */
export const OAUTH_REVOCATION_TESTS: OAuthTests = {
  "revokeOAuthGrant - a live grant: true, revoked at now, its own expiresAt and fields kept": async ({
    store,
    storedGrant,
  }) => {
    const made = await storedGrant();
    const other = await storedGrant();
    expect(
      await store.revokeOAuthGrant(made.grantId, { clientId: made.clientId, expiresAt: T0 + HOUR }, NOW),
    ).toBe(true);
    expect(await store.getOAuthGrant(made.grantId, NOW + 1)).toEqual({ ...made, revokedAt: NOW });
    expect(await store.getOAuthGrant(other.grantId, NOW + 1)).toEqual(other);
  },
  "revokeOAuthGrant - an already revoked grant: false, its first revokedAt kept": async ({
    store,
    storedGrant,
  }) => {
    const made = await storedGrant();
    const tombstone = { clientId: made.clientId, expiresAt: GRANT_ENDS };
    expect(await store.revokeOAuthGrant(made.grantId, tombstone, NOW)).toBe(true);
    expect(await store.revokeOAuthGrant(made.grantId, tombstone, NOW + 1_000)).toBe(false);
    expect(await store.getOAuthGrant(made.grantId, NOW + 2_000)).toEqual({ ...made, revokedAt: NOW });
  },
  "revokeOAuthGrant - an unknown id: false, and a revoked grant with that id refuses createOAuthGrant":
    async ({ store, storedClient, grant }) => {
      const { clientId } = await storedClient();
      const grantId = newGrantId();
      const expiresAt = NOW + 600_000;
      expect(await store.revokeOAuthGrant(grantId, { clientId, expiresAt }, NOW)).toBe(false);
      const tombstone = { grantId, clientId, userId: null, refreshHash: null, expiresAt, revokedAt: NOW };
      expect(await store.getOAuthGrant(grantId, NOW + 1)).toMatchObject(tombstone);
      const late = grant(clientId, { grantId, createdAt: NOW + 1, expiresAt: GRANT_ENDS });
      expect(await store.createOAuthGrant(late)).toBe(false);
      expect(await store.getOAuthGrant(grantId, NOW + 2)).toMatchObject(tombstone);
      expect(await store.rotateOAuthRefresh(grantId, hashOf(late), newHash(), NOW + 3)).toEqual(ABSENT);
      expect(await store.revokeOAuthGrant(grantId, { clientId, expiresAt }, NOW + 4)).toBe(false);
      expect(await store.getOAuthGrant(grantId, expiresAt)).toBeNull();
    },
  "revokeOAuthGrant - an expired grant: false": async ({ store, storedGrant }) => {
    const made = await storedGrant({ expiresAt: NOW });
    expect(await store.revokeOAuthGrant(made.grantId, { clientId: made.clientId, expiresAt: NOW }, NOW)).toBe(
      false,
    );
  },
  "revokeOAuthGrant racing createOAuthGrant of the same id (a replayed code): never a live grant": async ({
    store,
    storedClient,
    grant,
  }) => {
    const { clientId } = await storedClient();
    for (let round = 0; round < 20; round++) {
      const made = grant(clientId);
      const { created, revoked } = await race(store, made, round % 2 === 0);
      // Either the revocation came first (a tombstone: the creation refused) or second (revoking it).
      expect([created, revoked]).toEqual(created ? [true, true] : [false, false]);
      expect((await store.getOAuthGrant(made.grantId, NOW))?.revokedAt).toBe(NOW);
      expect(await store.rotateOAuthRefresh(made.grantId, hashOf(made), newHash(), NOW)).toEqual(ABSENT);
    }
  },
  "revokeUserOAuthGrants - revokes the user's live grants of every client: how many": async ({
    store,
    storedGrant,
  }) => {
    const userId = newUserId();
    const [first, second] = [await storedGrant({ userId }), await storedGrant({ userId })];
    const revoked = await storedGrant({ userId });
    await store.revokeOAuthGrant(revoked.grantId, { clientId: revoked.clientId, expiresAt: GRANT_ENDS }, T0);
    await storedGrant({ userId, expiresAt: NOW }); // ended at NOW: not counted
    const others = [await storedGrant({ clientId: first.clientId }), await storedGrant({ userId: null })];
    expect(await store.revokeUserOAuthGrants(userId, NOW)).toBe(2);
    for (const made of [first, second])
      expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual({ ...made, revokedAt: NOW });
    expect(await store.getOAuthGrant(revoked.grantId, NOW)).toEqual({ ...revoked, revokedAt: T0 });
    for (const made of others) expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual(made);
    expect(await store.revokeUserOAuthGrants(userId, NOW + 1)).toBe(0);
    expect(await store.revokeUserOAuthGrants(newUserId(), NOW)).toBe(0);
  },
  "revokeUserOAuthGrants - with a clientId: the user's live grants of that client only": async ({
    store,
    storedClient,
    storedGrant,
  }) => {
    const userId = newUserId();
    const { clientId } = await storedClient();
    const mine = [await storedGrant({ userId, clientId }), await storedGrant({ userId, clientId })];
    const elsewhere = await storedGrant({ userId });
    const otherUser = await storedGrant({ clientId });
    expect(await store.revokeUserOAuthGrants(userId, NOW, clientId)).toBe(2);
    for (const made of mine) expect((await store.getOAuthGrant(made.grantId, NOW))?.revokedAt).toBe(NOW);
    for (const made of [elsewhere, otherUser])
      expect(await store.getOAuthGrant(made.grantId, NOW)).toEqual(made);
    expect(await store.revokeUserOAuthGrants(userId, NOW, clientId)).toBe(0);
    expect(await store.revokeUserOAuthGrants(userId, NOW, newClientId())).toBe(0);
    expect(await store.revokeUserOAuthGrants(userId, NOW)).toBe(1);
  },
};
