import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { databasesForFile, onEachDialect } from "./test-two-pools.js";
import { storesAtMigration } from "./test-upgrade.js";
import { tablesOf } from "./webhook-upgrade.js";

// The conformance suite runs on each dialect through `runSqlStoreSuites`; here, the upgrade.
const databases = await databasesForFile("signingkeys");

/**
 * A database at 0016 with a webhook endpoint, migrated to 0017: `signing_keys` appears, every
 * other table keeps its columns and rows, a key can be added; migrated back down, it is gone.
 */
async function checkSigningKeysUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "s", "0016_webhooks");
  const { webhooks, signingKeys } = at.stores;
  const endpoint = {
    id: "w1",
    organizationId: null,
    url: "https://hooks.example.com/in",
    events: ["*"],
    enabled: true,
    disabledReason: null,
    secrets: [{ sealed: "sealed-1", expiresAt: null }],
    createdBy: null,
    createdAt: 3,
    cursor: 0,
  };
  expect(await webhooks.createEndpoint(endpoint, { maxPerScope: 1 })).toBe("created");
  const before = await tablesOf(db, at.tablePrefix);
  expect(await at.upgrade()).toEqual(migrationsAfter("0016_webhooks"));
  const after = await tablesOf(db, at.tablePrefix);
  // The later migrations come with it: 0018's OAuth tables, 0019's SSO tables, 0020's SCIM tables.
  const added = [
    "oauth_clients",
    "oauth_consents",
    "oauth_devices",
    "oauth_grants",
    "scim_group_members",
    "scim_groups",
    "scim_users",
    "signing_keys",
    "sso_assertions",
    "sso_connection_domains",
    "sso_connections",
    "sso_domains",
  ];
  expect(after.map((table) => table.name)).toEqual([...before.map((table) => table.name), ...added].sort());
  expect(after.filter((table) => !added.includes(table.name))).toEqual(before);
  expect(await webhooks.findEndpoint("w1")).toEqual(endpoint);
  const key = {
    kid: "k1",
    alg: "ES256",
    publicJwk: '{"kty":"EC"}',
    sealedPrivateKey: "v1.sealed",
    createdAt: 10,
    activatesAt: 10,
  };
  expect(await signingKeys.addSigningKey(key, 0)).toBe(true);
  expect(await signingKeys.listSigningKeys()).toEqual([key]);
  await at.downgrade();
  expect(await tablesOf(db, at.tablePrefix)).toEqual(before);
  await expect(signingKeys.listSigningKeys()).rejects.toThrow();
}

onEachDialect(
  databases,
  "migrate - 0017 adds the signing keys table, and nothing else changes",
  checkSigningKeysUpgrade,
);
