import { randomBytes } from "node:crypto";
import type { SsoConnectionRecord, SsoStore } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { ssoSchema } from "./sso-migration.js";
import { countedSqlite, countStatements, storeOnOwnTables } from "./test-databases.js";
import { databasesForFile, onBothPools, onEachDialect, twoPoolTests } from "./test-two-pools.js";
import { storesAtMigration } from "./test-upgrade.js";
import { tablesOf } from "./webhook-upgrade.js";

// The conformance suite runs on each dialect through `runSqlStoreSuites` (one pool); here, its
// races through two pools of one database at once, the upgrade to 0019 and the sweep of used
// assertions on each dialect, and the statements of the reads every sign-in and SCIM request make.
const databases = await databasesForFile("sso");

const NOW = 1_700_000_000_000;
const ROUNDS = 5;
const AT_ONCE = 10;

const random = () => randomBytes(12).toString("hex");
const newDomain = () => `d${random()}.example.com`;

const newConnection = (overrides: Partial<SsoConnectionRecord> = {}): SsoConnectionRecord => ({
  id: `c-${random()}`,
  organizationId: `o-${random()}`,
  type: "saml",
  saml: { entityId: "https://idp.example.com", ssoUrl: "https://idp.example.com/sso", certificates: ["pem"] },
  oidc: null,
  defaultRole: "member",
  domains: [newDomain()],
  ssoRequired: true,
  idpInitiated: false,
  scimTokenHash: random(),
  createdAt: NOW,
  updatedAt: NOW,
  ...overrides,
});

/** `count` calls of `call`, started together, alternating between the two stores. */
const racing = <T>(stores: SsoStore[], count: number, call: (store: SsoStore, n: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, n) => call(stores[n % stores.length] as SsoStore, n)));

/**
 * Rounds of races through two pools on tables of their own: connections of different
 * organizations created at once naming one domain (one created), organizations verifying one
 * domain at once (one verified), one assertion used at once (one true).
 */
async function checkRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  const made = storeOnOwnTables(a, "s", ssoSchema, (stores) => stores.sso);
  await onBothPools(
    made,
    (tablePrefix) => createSqlStores({ db: b, tablePrefix }).sso,
    async (stores) => {
      const [store] = stores;
      for (let round = 0; round < ROUNDS; round++) {
        const domain = newDomain();
        const connections = Array.from({ length: AT_ONCE }, () =>
          newConnection({ domains: [newDomain(), domain] }),
        );
        const created = await racing(stores, AT_ONCE, (one, n) =>
          one.createSsoConnection(connections[n] as SsoConnectionRecord),
        );
        expect(created.filter((result) => result === "created")).toHaveLength(1);
        const winner = connections[created.indexOf("created")] as SsoConnectionRecord;
        const claims = connections.map((connection) => ({
          organizationId: connection.organizationId,
          domain,
          verificationToken: random(),
          verifiedAt: null,
          createdAt: NOW,
        }));
        for (const claim of claims) expect(await store.claimSsoDomain(claim)).toBe("created");
        const verified = await racing(stores, AT_ONCE, (one, n) =>
          one.verifySsoDomain(claims[n]?.organizationId ?? "", domain, NOW + n),
        );
        expect(verified.filter((result) => result === "taken")).toHaveLength(AT_ONCE - 1);
        const route = await store.findSsoRoute(domain);
        const verifier = claims[verified.findIndex((result) => result !== "taken")];
        expect(route?.connection ?? null).toEqual(
          verifier?.organizationId === winner.organizationId ? winner : null,
        );
        const assertionId = `_${random()}`;
        const used = await racing(stores, AT_ONCE, (one) => one.useSsoAssertion(winner.id, assertionId, NOW));
        expect(used.filter(Boolean)).toHaveLength(1);
      }
    },
  );
}

describe("SSO store races through two pools", () => {
  twoPoolTests(
    databases,
    (through) => `createSsoConnection, verifySsoDomain, useSsoAssertion at once, through ${through}`,
    checkRaces,
  );
});

/**
 * A database at 0018 with an OAuth client, migrated to 0019: the four SSO tables appear, every
 * other table keeps its columns and rows, a connection routes its verified domain; migrated back
 * down, they are gone.
 */
async function checkSsoUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "u", "0018_oauth");
  const { oauth, sso } = at.stores;
  const client = {
    clientId: "cli",
    name: "CLI",
    secretHash: null,
    redirectUris: ["http://127.0.0.1:8765/cb"],
    grantTypes: ["authorization_code"],
    scopes: ["openid"],
    dynamic: false,
    createdAt: NOW,
  };
  expect(await oauth.createOAuthClient(client)).toBe(true);
  const before = await tablesOf(db, at.tablePrefix);
  expect(await at.upgrade()).toEqual(migrationsAfter("0018_oauth"));
  const after = await tablesOf(db, at.tablePrefix);
  // 0020's SCIM tables come with it.
  const added = [
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
  expect(await oauth.getOAuthClient("cli")).toEqual(client);
  const connection = newConnection();
  const [domain = ""] = connection.domains;
  expect(await sso.createSsoConnection(connection)).toBe("created");
  const claim = {
    organizationId: connection.organizationId,
    domain,
    verificationToken: "t",
    verifiedAt: null,
    createdAt: NOW,
  };
  expect(await sso.claimSsoDomain(claim)).toBe("created");
  const verified = { ...claim, verifiedAt: NOW };
  expect(await sso.verifySsoDomain(connection.organizationId, domain, NOW)).toEqual(verified);
  expect(await sso.findSsoRoute(domain)).toEqual({ connection, domain: verified });
  await at.downgrade();
  expect(await tablesOf(db, at.tablePrefix)).toEqual(before);
  expect(await oauth.getOAuthClient("cli")).toEqual(client);
  await expect(sso.findSsoConnection(connection.id)).rejects.toThrow();
}

onEachDialect(
  databases,
  "migrate - 0019 adds the four SSO tables, and nothing else changes",
  checkSsoUpgrade,
);

/** Used assertions past their end are swept (and may then be used again); the others stay. */
async function checkAssertionSweep(db: AnyKysely): Promise<void> {
  const clock = createFakeClock({ start: NOW });
  const tablePrefix = `w${randomBytes(5).toString("hex")}_`;
  const stores = createSqlStores({ db, clock, tablePrefix, sweepBatchRows: 2 });
  await stores.migrate();
  for (let n = 0; n < 5; n++)
    expect(await stores.sso.useSsoAssertion("c1", `_short${n}`, NOW + 1_000)).toBe(true);
  expect(await stores.sso.useSsoAssertion("c1", "_long", NOW + 5_000)).toBe(true);
  expect(await stores.sweep()).toBe(0);
  clock.advance(1_000);
  expect(await stores.sweep()).toBe(5);
  expect(await stores.sweep()).toBe(0);
  expect(await stores.sso.useSsoAssertion("c1", "_long", NOW + 5_000)).toBe(false);
  expect(await stores.sso.useSsoAssertion("c1", "_short0", NOW + 9_000)).toBe(true);
}

onEachDialect(
  databases,
  "sweep - removes used assertions past their expiresAt, and only those",
  checkAssertionSweep,
);

describe("SSO store statements", () => {
  it("findSsoRoute, findSsoConnectionByScimTokenHash - one statement each", async () => {
    const { db, counting } = countedSqlite();
    await migrate(db);
    const { sso } = createSqlStores({ db });
    const connection = newConnection();
    const [domain = ""] = connection.domains;
    await sso.createSsoConnection(connection);
    await sso.claimSsoDomain({
      organizationId: connection.organizationId,
      domain,
      verificationToken: "t",
      verifiedAt: null,
      createdAt: NOW,
    });
    await sso.verifySsoDomain(connection.organizationId, domain, NOW);
    const route = await countStatements(counting, () => sso.findSsoRoute(domain));
    expect(route.answer?.connection).toEqual(connection);
    expect(route.statements).toHaveLength(1);
    const scim = await countStatements(counting, () =>
      sso.findSsoConnectionByScimTokenHash(connection.scimTokenHash ?? ""),
    );
    expect(scim.answer).toEqual(connection);
    expect(scim.statements).toHaveLength(1);
    await db.destroy();
  });
});
