import { randomBytes } from "node:crypto";
import type { OAuthClientRecord, OAuthGrantRecord, OAuthStore } from "@portcullis/core";
import { describe, expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { createSqlStores } from "./sql-stores.js";
import { freshOAuthStore } from "./test-databases.js";
import { databasesForFile, onBothPools, onEachDialect, twoPoolTests } from "./test-two-pools.js";
import { storesAtMigration } from "./test-upgrade.js";
import { tablesOf } from "./webhook-upgrade.js";

// The conformance suite runs on each dialect through `runSqlStoreSuites` (one pool); here, its
// races through two pools of one database at once (two connections to one SQLite file, two
// PostgreSQL pools, two MariaDB pools), then the upgrade to 0018 on each dialect.
const databases = await databasesForFile("oauth");

const NOW = 1_700_000_000_000;
const ENDS = NOW + 3_600_000;
const ROUNDS = 10;

const random = () => randomBytes(24).toString("base64url");

const newClient = (): OAuthClientRecord => ({
  clientId: random(),
  name: "CLI",
  secretHash: null,
  redirectUris: ["http://127.0.0.1:8765/cb"],
  grantTypes: ["authorization_code", "refresh_token"],
  scopes: ["openid", "offline_access"],
  dynamic: false,
  createdAt: NOW,
});

const newGrant = (clientId: string): OAuthGrantRecord => ({
  grantId: random(),
  clientId,
  userId: `user-${random()}`,
  scopes: ["openid"],
  resources: [],
  authTime: NOW,
  refreshHash: random(),
  createdAt: NOW,
  expiresAt: ENDS,
  revokedAt: null,
});

/** The OAuth store on new tables through `a`, and the same tables' store through `b`. */
const onTwoPools = (a: AnyKysely, b: AnyKysely, run: (stores: [OAuthStore, OAuthStore]) => Promise<void>) =>
  onBothPools(freshOAuthStore(a), (tablePrefix) => createSqlStores({ db: b, tablePrefix }).oauth, run);

/** `count` calls of `call`, started together, alternating between the two stores. */
const racing = <T>(stores: OAuthStore[], count: number, call: (store: OAuthStore, n: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, n) => call(stores[n % stores.length] as OAuthStore, n)));

/**
 * Rounds of races on one grant each, the calls alternating between the pools: 10 rotations with
 * the live hash (one rotated, one reused, the grant then revoked); a revocation and the creation
 * of one id (a replayed code: the grant ends up revoked whichever came first).
 */
async function checkGrantRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    const [store] = stores;
    const client = newClient();
    expect(await store.createOAuthClient(client)).toBe(true);
    for (let round = 0; round < ROUNDS; round++) {
      const grant = newGrant(client.clientId);
      expect(await store.createOAuthGrant(grant)).toBe(true);
      const results = await racing(stores, 10, (one) =>
        one.rotateOAuthRefresh(grant.grantId, grant.refreshHash ?? "", random(), NOW),
      );
      const outcomes = results.map((result) => result.outcome).sort();
      expect(outcomes).toEqual([...Array(8).fill("absent"), "reused", "rotated"]);
      expect((await store.getOAuthGrant(grant.grantId, NOW))?.revokedAt).toBe(NOW);

      const replayed = newGrant(client.clientId);
      const tombstone = { clientId: client.clientId, expiresAt: ENDS };
      const [created, revoked] = await Promise.all([
        stores[round % 2]?.createOAuthGrant(replayed),
        stores[(round + 1) % 2]?.revokeOAuthGrant(replayed.grantId, tombstone, NOW),
      ]);
      expect([created, revoked]).toEqual(created ? [true, true] : [false, false]);
      expect((await store.getOAuthGrant(replayed.grantId, NOW))?.revokedAt).toBe(NOW);
    }
  });
}

/**
 * Rounds of a client's deletion racing the creation of a grant for it through the other pool:
 * when the deletion wins, no grant of the client is left behind, whichever statement came first.
 */
async function checkDeletionRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    for (let round = 0; round < ROUNDS; round++) {
      const client = newClient();
      const [first, second] = round % 2 === 0 ? stores : [stores[1], stores[0]];
      if (!first || !second) throw new Error("two stores");
      expect(await first.createOAuthClient(client)).toBe(true);
      const grant = newGrant(client.clientId);
      const [deleted] = await Promise.all([
        first.deleteOAuthClient(client.clientId),
        second.createOAuthGrant(grant),
      ]);
      expect(deleted).toBe(true);
      expect(await first.getOAuthGrant(grant.grantId, NOW)).toBeNull();
      expect(await second.revokeUserOAuthGrants(grant.userId ?? "", NOW)).toBe(0);
    }
  });
}

/**
 * Rounds on one device authorization each: 10 decisions at once (one true), then 10 polls at once
 * of the approved or denied record (one answers it, the others find it absent).
 */
async function checkDeviceRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  await onTwoPools(a, b, async (stores) => {
    const [store] = stores;
    const client = newClient();
    expect(await store.createOAuthClient(client)).toBe(true);
    for (let round = 0; round < ROUNDS; round++) {
      const device = {
        deviceCodeHash: random(),
        userCodeHash: random(),
        clientId: client.clientId,
        scopes: ["openid"],
        resources: [],
        status: "pending" as const,
        userId: null,
        authTime: null,
        intervalSeconds: 5,
        lastPolledAt: null,
        expiresAt: ENDS,
      };
      expect(await store.createOAuthDevice(device)).toBe(true);
      const decided = await racing(stores, 10, (one, n) =>
        one.decideOAuthDevice(
          device.userCodeHash,
          { userId: `u${n}`, approve: n % 2 === 0, authTime: NOW },
          NOW,
        ),
      );
      expect(decided.filter(Boolean)).toHaveLength(1);
      const approved = decided.indexOf(true) % 2 === 0;
      const polls = await racing(stores, 10, (one) => one.pollOAuthDevice(device.deviceCodeHash, NOW + 1));
      const answered = polls.filter((poll) => poll.outcome !== "absent");
      expect(answered.map((poll) => poll.outcome)).toEqual([approved ? "approved" : "denied"]);
    }
  });
}

describe("OAuth store races through two pools", () => {
  twoPoolTests(
    databases,
    (through) => `rotations, and revocations racing creations, through ${through}`,
    checkGrantRaces,
  );
  twoPoolTests(
    databases,
    (through) => `deleting a client racing a grant's creation, through ${through}`,
    checkDeletionRaces,
  );
  twoPoolTests(
    databases,
    (through) => `device decisions and polls at once, through ${through}`,
    checkDeviceRaces,
  );
});

/**
 * A database at 0017 with a signing key, migrated to 0018: the four OAuth tables appear, every
 * other table keeps its columns and rows, a client and its grant can be stored; migrated back
 * down, they are gone.
 */
async function checkOAuthUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "o", "0017_signing_keys");
  const { signingKeys, oauth } = at.stores;
  const key = {
    kid: "k1",
    alg: "ES256",
    publicJwk: '{"kty":"EC"}',
    sealedPrivateKey: "v1.sealed",
    createdAt: 10,
    activatesAt: 10,
  };
  expect(await signingKeys.addSigningKey(key, 0)).toBe(true);
  const before = await tablesOf(db, at.tablePrefix);
  expect(await at.upgrade()).toEqual(migrationsAfter("0017_signing_keys"));
  const after = await tablesOf(db, at.tablePrefix);
  // The later migrations come with it: 0019's SSO tables, 0020's SCIM tables.
  const added = [
    "oauth_clients",
    "oauth_consents",
    "oauth_devices",
    "oauth_grants",
    "scim_group_members",
    "scim_groups",
    "scim_users",
    "sso_assertions",
    "sso_connection_domains",
    "sso_connections",
    "sso_domains",
  ];
  expect(after.map((table) => table.name)).toEqual([...before.map((table) => table.name), ...added].sort());
  expect(after.filter((table) => !added.includes(table.name))).toEqual(before);
  expect(await signingKeys.listSigningKeys()).toEqual([key]);
  const client = newClient();
  const grant = newGrant(client.clientId);
  expect(await oauth.createOAuthClient(client)).toBe(true);
  expect(await oauth.createOAuthGrant(grant)).toBe(true);
  expect(await oauth.getOAuthGrant(grant.grantId, NOW)).toEqual(grant);
  await at.downgrade();
  expect(await tablesOf(db, at.tablePrefix)).toEqual(before);
  expect(await signingKeys.listSigningKeys()).toEqual([key]);
  await expect(oauth.getOAuthClient(client.clientId)).rejects.toThrow();
}

onEachDialect(
  databases,
  "migrate - 0018 adds the four OAuth tables, and nothing else changes",
  checkOAuthUpgrade,
);
