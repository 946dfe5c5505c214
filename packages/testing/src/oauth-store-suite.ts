import { expect } from "vitest";
import { OAUTH_CONSENT_TESTS } from "./oauth-store-consents.js";
import {
  GRANT_ENDS,
  NOW,
  newClientId,
  newGrantId,
  newHash,
  newUserId,
  type OAuthTests,
  oauthContext,
  swapCase,
} from "./oauth-store-context.js";
import { OAUTH_DEVICE_POLL_TESTS, OAUTH_DEVICE_TESTS } from "./oauth-store-devices.js";
import { OAUTH_GRANT_TESTS, OAUTH_REVOCATION_TESTS } from "./oauth-store-grants.js";
import { defineStoreSuite } from "./store-fixture.js";

const CLIENT_TESTS: OAuthTests = {
  "createOAuthClient - stores the client as given; getOAuthClient reads every field back, arrays in order":
    async ({ store, client }) => {
      const confidential = client({
        redirectUris: ["https://z.example.com/cb", "https://a.example.com/cb?x=1&y=é"],
        grantTypes: ["refresh_token", "authorization_code"],
        scopes: ["profile", "openid", "email"],
      });
      const publicClient = client({
        name: "Ünïcode device app",
        secretHash: null,
        redirectUris: [],
        grantTypes: ["urn:ietf:params:oauth:grant-type:device_code"],
        scopes: [],
        dynamic: true,
      });
      for (const made of [confidential, publicClient])
        expect(await store.createOAuthClient(structuredClone(made))).toBe(true);
      expect(await store.getOAuthClient(confidential.clientId)).toEqual(confidential);
      expect(await store.getOAuthClient(publicClient.clientId)).toEqual(publicClient);
    },
  "getOAuthClient - null for an id no client has, or one of another case": async ({
    store,
    storedClient,
  }) => {
    const made = await storedClient({ clientId: `Mixed-${newClientId()}` });
    expect(await store.getOAuthClient(newClientId())).toBeNull();
    expect(await store.getOAuthClient(swapCase(made.clientId))).toBeNull();
    expect(await store.getOAuthClient(made.clientId)).toEqual(made);
  },
  "createOAuthClient - a clientId taken: false, and the first client is kept": async ({
    store,
    client,
    storedClient,
  }) => {
    const first = await storedClient();
    const second = client({ clientId: first.clientId, name: "Impostor", secretHash: null, dynamic: true });
    expect(await store.createOAuthClient(second)).toBe(false);
    expect(await store.getOAuthClient(first.clientId)).toEqual(first);
    expect(await store.listOAuthClients({ limit: 1000 })).toEqual([first]);
  },
  "createOAuthClient - 20 at once with one clientId: exactly one stored": async ({ store, client }) => {
    const clientId = newClientId();
    const made = Array.from({ length: 20 }, (_, index) => client({ clientId, name: `client ${index}` }));
    const results = await Promise.all(made.map((one) => store.createOAuthClient(structuredClone(one))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.getOAuthClient(clientId)).toEqual(made[results.indexOf(true)]);
  },
  "getOAuthClient, listOAuthClients - return copies; the store keeps no reference to what it was given":
    async ({ store, client }) => {
      const made = client();
      const given = structuredClone(made);
      await store.createOAuthClient(given);
      given.name = "changed";
      given.redirectUris.push("https://evil.example.com/");
      const read = await store.getOAuthClient(made.clientId);
      read?.scopes.push("admin");
      const [listed] = await store.listOAuthClients({ limit: 10 });
      if (listed) listed.grantTypes.length = 0;
      expect(await store.getOAuthClient(made.clientId)).toEqual(made);
      expect(await store.listOAuthClients({ limit: 10 })).toEqual([made]);
    },
  "listOAuthClients - ordered by clientId; after and limit page through them": async ({
    store,
    storedClient,
  }) => {
    expect(await store.listOAuthClients({ limit: 1000 })).toEqual([]);
    const prefix = newClientId();
    const byLetter: Record<string, Awaited<ReturnType<typeof storedClient>>> = {};
    for (const letter of ["c", "a", "e", "b", "d"])
      byLetter[letter] = await storedClient({ clientId: prefix + letter });
    const [a, b, c, d, e] = ["a", "b", "c", "d", "e"].map((letter) => byLetter[letter]);
    expect(await store.listOAuthClients({ limit: 1000 })).toEqual([a, b, c, d, e]);
    expect(await store.listOAuthClients({ limit: 1 })).toEqual([a]);
    expect(await store.listOAuthClients({ limit: 2 })).toEqual([a, b]);
    expect(await store.listOAuthClients({ after: `${prefix}b`, limit: 2 })).toEqual([c, d]);
    expect(await store.listOAuthClients({ after: `${prefix}d`, limit: 2 })).toEqual([e]);
    expect(await store.listOAuthClients({ after: `${prefix}e`, limit: 2 })).toEqual([]);
    // `after` need not be a stored id: the clients after it in the order.
    expect(await store.listOAuthClients({ after: `${prefix}bb`, limit: 1000 })).toEqual([c, d, e]);
    expect(await store.listOAuthClients({ after: "", limit: 1000 })).toEqual([a, b, c, d, e]);
  },
  "updateOAuthClient - changes the given fields only; the others, and other clients, stay": async ({
    store,
    storedClient,
  }) => {
    const made = await storedClient({ dynamic: true });
    const other = await storedClient();
    expect(await store.updateOAuthClient(made.clientId, { name: "Renamed" })).toBe(true);
    const renamed = { ...made, name: "Renamed" };
    expect(await store.getOAuthClient(made.clientId)).toEqual(renamed);
    const patch = {
      secretHash: null,
      redirectUris: ["https://new.example.com/cb", "https://alt.example.com/cb"],
      grantTypes: ["client_credentials"],
      scopes: ["api.write", "api.read"],
    };
    expect(await store.updateOAuthClient(made.clientId, patch)).toBe(true);
    const patched = { ...renamed, ...patch };
    expect(await store.getOAuthClient(made.clientId)).toEqual(patched);
    const secretHash = newHash();
    expect(await store.updateOAuthClient(made.clientId, { secretHash, redirectUris: [] })).toBe(true);
    expect(await store.getOAuthClient(made.clientId)).toEqual({ ...patched, secretHash, redirectUris: [] });
    expect(await store.updateOAuthClient(made.clientId, {})).toBe(true);
    expect(await store.getOAuthClient(made.clientId)).toEqual({ ...patched, secretHash, redirectUris: [] });
    expect(await store.getOAuthClient(other.clientId)).toEqual(other);
  },
  "updateOAuthClient - false for an unknown id, and nothing is made": async ({ store, storedClient }) => {
    const made = await storedClient();
    const clientId = newClientId();
    expect(await store.updateOAuthClient(clientId, { name: "Ghost", scopes: ["openid"] })).toBe(false);
    expect(await store.getOAuthClient(clientId)).toBeNull();
    expect(await store.listOAuthClients({ limit: 1000 })).toEqual([made]);
  },
  "deleteOAuthClient - true and the client is gone; false when it was not there": async ({
    store,
    storedClient,
  }) => {
    const made = await storedClient();
    const kept = await storedClient();
    expect(await store.deleteOAuthClient(made.clientId)).toBe(true);
    expect(await store.getOAuthClient(made.clientId)).toBeNull();
    expect(await store.listOAuthClients({ limit: 1000 })).toEqual([kept]);
    expect(await store.updateOAuthClient(made.clientId, { name: "Back" })).toBe(false);
    expect(await store.deleteOAuthClient(made.clientId)).toBe(false);
    expect(await store.deleteOAuthClient(newClientId())).toBe(false);
  },
  "deleteOAuthClient - deletes its grants (live and revoked), consents and devices; no other client's":
    async ({ store, storedClient, storedGrant, storedDevice, consent }) => {
      const [gone, kept] = [await storedClient(), await storedClient()];
      const userId = newUserId();
      const live = await storedGrant({ clientId: gone.clientId, userId });
      const revoked = await storedGrant({ clientId: gone.clientId });
      await store.revokeOAuthGrant(revoked.grantId, { clientId: gone.clientId, expiresAt: GRANT_ENDS }, NOW);
      const tombstone = newGrantId();
      await store.revokeOAuthGrant(tombstone, { clientId: gone.clientId, expiresAt: GRANT_ENDS }, NOW);
      const pending = await storedDevice({ clientId: gone.clientId });
      const approved = await storedDevice({ clientId: gone.clientId });
      expect(
        await store.decideOAuthDevice(approved.userCodeHash, { userId, approve: true, authTime: NOW }, NOW),
      ).toBe(true);
      await store.saveOAuthConsent(consent(userId, gone.clientId));
      const keptGrant = await storedGrant({ clientId: kept.clientId, userId });
      const keptDevice = await storedDevice({ clientId: kept.clientId });
      const keptConsent = consent(userId, kept.clientId);
      await store.saveOAuthConsent(structuredClone(keptConsent));

      expect(await store.deleteOAuthClient(gone.clientId)).toBe(true);
      for (const grantId of [live.grantId, revoked.grantId, tombstone])
        expect(await store.getOAuthGrant(grantId, NOW)).toBeNull();
      expect(await store.rotateOAuthRefresh(live.grantId, live.refreshHash ?? "", newHash(), NOW)).toEqual({
        outcome: "absent",
      });
      expect(await store.getOAuthConsent(userId, gone.clientId)).toBeNull();
      expect(await store.listOAuthConsents(userId)).toEqual([keptConsent]);
      expect(await store.findOAuthDevice(pending.userCodeHash, NOW)).toBeNull();
      expect(await store.pollOAuthDevice(pending.deviceCodeHash, NOW)).toEqual({ outcome: "absent" });
      expect(await store.pollOAuthDevice(approved.deviceCodeHash, NOW)).toEqual({ outcome: "absent" });
      expect(await store.getOAuthGrant(keptGrant.grantId, NOW)).toEqual(keptGrant);
      expect(await store.findOAuthDevice(keptDevice.userCodeHash, NOW)).toEqual(keptDevice);
      // The deleted client's grant is no longer counted among the user's live ones.
      expect(await store.revokeUserOAuthGrants(userId, NOW)).toBe(1);
    },
};

/**
 * The executable contract of `OAuthStore` (see its TSDoc in @portcullis/core). Each test needs an
 * empty store of its own (a fresh key prefix, schema or table prefix per test for a store on a
 * shared server). The tests pass every instant the store compares (`now`), all of them fixed,
 * far from the test's own time: a store judges expiry by the `now` it is given, never by a clock
 * of its own. Where the port's TSDoc leaves a point open, the suite reads it so:
 * - A record whose `expiresAt` is at or before `now` has ended (`now >= expiresAt`): a grant reads
 *   as null, a device authorization polls as `expired` (an approved one too).
 * - Polled exactly `intervalSeconds` after `lastPolledAt` is not "sooner": `pending`.
 * - A tombstone (`revokeOAuthGrant` of an unknown id) reads back with `getOAuthGrant` as a revoked
 *   grant: its id, `clientId` and `expiresAt`, `revokedAt` = `now`, no user and no refresh hash.
 * - Revoking an already revoked grant keeps its first `revokedAt`; a `reused` rotation revokes at
 *   `now`.
 * - Deleting a client deletes its revoked grants and tombstones too.
 * - Grants, consents and device authorizations are only ever made for a stored client.
 * - Ids and hashes match byte for byte: one of another letter case is another (a case-insensitive
 *   SQL collation fails the suite).
 * - Left open: the `refreshHash` of a grant revoked by a `reused` rotation, the `lastPolledAt` of
 *   the record an `approved` poll returns (the last pending poll's or this one's), whether a store
 *   forgets an ended record at once (no test reads one back at an earlier `now`), and whether an
 *   ended device authorization that was never polled blocks its hashes.
 */
export const runOAuthStoreSuite = defineStoreSuite("OAuthStore", oauthContext, {
  clients: CLIENT_TESTS,
  grants: OAUTH_GRANT_TESTS,
  revocation: OAUTH_REVOCATION_TESTS,
  consents: OAUTH_CONSENT_TESTS,
  devices: OAUTH_DEVICE_TESTS,
  pollOAuthDevice: OAUTH_DEVICE_POLL_TESTS,
});
