import { createHash, randomBytes } from "node:crypto";
import type { ScimGroupRecord, ScimStore, ScimUserRecord } from "@portcullis/core";
import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { scimSchema } from "./scim-migration.js";
import { createSqlStores } from "./sql-stores.js";
import { storeOnOwnTables } from "./test-databases.js";
import { databasesForFile, onBothPools, onEachDialect, twoPoolTests } from "./test-two-pools.js";
import { storesAtMigration } from "./test-upgrade.js";
import { tablesOf } from "./webhook-upgrade.js";

// The conformance suite runs on each dialect through `runSqlStoreSuites` (one pool); here, its
// races through two pools of one database at once, the upgrade to 0020 on each dialect, and the
// values longer than a key column (names, externalIds, attributes past MySQL's `text`).
const databases = await databasesForFile("scim");

const NOW = 1_700_000_000_000;
const ROUNDS = 3;
const AT_ONCE = 10;

const random = () => randomBytes(9).toString("base64url");

const newUser = (connectionId: string, overrides: Partial<ScimUserRecord> = {}): ScimUserRecord => ({
  connectionId,
  id: `u${random()}`,
  userId: `acc-${random()}`,
  userName: `${random()}@Example.com`,
  externalId: `ext-${random()}`,
  active: true,
  suspendedRole: null,
  attributes: { name: { givenName: "Ada", familyName: "Lovelace" } },
  version: 1,
  createdAt: NOW,
  updatedAt: NOW,
  ...overrides,
});

const newGroup = (connectionId: string, overrides: Partial<ScimGroupRecord> = {}): ScimGroupRecord => ({
  connectionId,
  id: `g${random()}`,
  displayName: `Team ${random()}`,
  externalId: null,
  role: "member",
  memberIds: [],
  version: 1,
  createdAt: NOW,
  updatedAt: NOW,
  ...overrides,
});

/** `text` with its letters upper-cased where the bits of `variant` say. */
const caseVariant = (text: string, variant: number) => {
  let letters = 0;
  return text.replace(/[a-z]/gi, (letter) =>
    (variant >> letters++) & 1 ? letter.toUpperCase() : letter.toLowerCase(),
  );
};

/** `count` calls of `call`, started together, alternating between the two stores. */
const racing = <T>(stores: ScimStore[], count: number, call: (store: ScimStore, n: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, n) => call(stores[n % stores.length] as ScimStore, n)));

/**
 * Rounds of races through two pools on tables of their own: users created at once naming one
 * userName in different cases, or one account (one created each time); groups created at once
 * naming one displayName (one created); a group's members deleted while updates at its first
 * version name them (no deleted user comes back, each delete moves the version on).
 */
async function checkRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  const made = storeOnOwnTables(a, "c", scimSchema, (stores) => stores.scim);
  await onBothPools(
    made,
    (tablePrefix) => createSqlStores({ db: b, tablePrefix }).scim,
    async (stores) => {
      const [store] = stores;
      for (let round = 0; round < ROUNDS; round++) {
        const connectionId = `c-${random()}`;
        const userName = `ada.${round}@example.com`;
        const byName = await racing(stores, AT_ONCE, (one, n) =>
          one.createScimUser(newUser(connectionId, { userName: caseVariant(userName, n) })),
        );
        expect(byName.filter((result) => result === "created")).toHaveLength(1);
        expect(byName.filter((result) => result === "user-name-taken")).toHaveLength(AT_ONCE - 1);
        const userId = `acc-${random()}`;
        const byAccount = await racing(stores, AT_ONCE, (one) =>
          one.createScimUser(newUser(connectionId, { userId })),
        );
        expect(byAccount.filter((result) => result === "created")).toHaveLength(1);
        const displayName = `Platform ${round}`;
        const groups = await racing(stores, AT_ONCE, (one, n) =>
          one.createScimGroup(newGroup(connectionId, { displayName: caseVariant(displayName, n) })),
        );
        expect(groups.filter((result) => result === "created")).toHaveLength(1);
        const members: ScimUserRecord[] = [];
        for (let n = 0; n < AT_ONCE; n++) {
          const user = newUser(connectionId);
          expect(await store.createScimUser(user)).toBe("created");
          members.push(user);
        }
        const memberIds = members.map((user) => user.id).sort();
        const group = newGroup(connectionId, { memberIds });
        expect(await store.createScimGroup(group)).toBe("created");
        const results = await racing<unknown>(stores, AT_ONCE, (one, n) =>
          n % 2 === 0
            ? one.deleteScimUser(connectionId, memberIds[n] ?? "")
            : one.updateScimGroup(connectionId, group.id, 1, { memberIds, updatedAt: NOW + n }),
        );
        expect(results.filter((result) => result === true)).toHaveLength(AT_ONCE / 2);
        const updated = results.filter((result) => typeof result === "object" && result !== null).length;
        expect(updated).toBeLessThanOrEqual(1);
        const found = await store.findScimGroup(connectionId, group.id);
        expect(found?.memberIds).toEqual(memberIds.filter((_, n) => n % 2 === 1));
        expect(found?.version).toBe(1 + AT_ONCE / 2 + updated);
      }
    },
  );
}

twoPoolTests(
  databases,
  (through) => `createScimUser, createScimGroup, deleteScimUser, updateScimGroup at once, through ${through}`,
  checkRaces,
);

/**
 * A database at 0019 with an SSO connection, migrated to 0020: the three SCIM tables appear, every
 * other table keeps its columns and rows, a user and a group can be stored; migrated back down,
 * they are gone.
 */
async function checkScimUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "i", "0019_sso");
  const { sso, scim } = at.stores;
  const connection = {
    id: `c-${random()}`,
    organizationId: "o1",
    type: "saml" as const,
    saml: { entityId: "https://idp.example.com", ssoUrl: "https://idp.example.com/sso", certificates: [] },
    oidc: null,
    defaultRole: "member",
    domains: [],
    ssoRequired: false,
    idpInitiated: false,
    scimTokenHash: "hash",
    createdAt: NOW,
    updatedAt: NOW,
  };
  expect(await sso.createSsoConnection(connection)).toBe("created");
  const before = await tablesOf(db, at.tablePrefix);
  expect(await at.upgrade()).toEqual(migrationsAfter("0019_sso"));
  const after = await tablesOf(db, at.tablePrefix);
  const added = ["scim_group_members", "scim_groups", "scim_users"];
  expect(after.map((table) => table.name)).toEqual([...before.map((table) => table.name), ...added].sort());
  expect(after.filter((table) => !added.includes(table.name))).toEqual(before);
  expect(await sso.findSsoConnectionByScimTokenHash("hash")).toEqual(connection);
  const user = newUser(connection.id);
  expect(await scim.createScimUser(user)).toBe("created");
  const group = newGroup(connection.id, { memberIds: [user.id] });
  expect(await scim.createScimGroup(group)).toBe("created");
  expect(await scim.listScimGroupsOfUsers(connection.id, [user.id])).toEqual([group]);
  await at.downgrade();
  expect(await tablesOf(db, at.tablePrefix)).toEqual(before);
  expect(await sso.findSsoConnection(connection.id)).toEqual(connection);
  await expect(scim.findScimUser(connection.id, user.id)).rejects.toThrow();
}

onEachDialect(
  databases,
  "migrate - 0020 adds the three SCIM tables, and nothing else changes",
  checkScimUpgrade,
);

/**
 * Names and externalIds of 1,024 characters (past a key column: their keys are hashes) are found
 * and refused as short ones are; a short name that reads as another's hashed key is another name;
 * a user's hundred addresses (past MySQL's `text`) come back whole.
 */
async function checkLongValues(db: AnyKysely): Promise<void> {
  const { store, cleanup } = await storeOnOwnTables(db, "l", scimSchema, (stores) => stores.scim);
  try {
    const connectionId = `c-${random()}`;
    const userName = `${"Ab".repeat(510)}@x`;
    const externalId = "Ext".repeat(341);
    const emails = Array.from({ length: 100 }, (_, n) => ({
      value: `${n}.${"a".repeat(300)}@example.com`,
      type: "w".repeat(1_024),
      primary: n === 0,
    }));
    const long = newUser(connectionId, { userName, externalId, attributes: { emails } });
    expect(await store.createScimUser(long)).toBe("created");
    expect(await store.findScimUserByUserName(connectionId, userName.toUpperCase())).toEqual(long);
    expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(long);
    expect(await store.findScimUserByExternalId(connectionId, externalId.toLowerCase())).toBeNull();
    const sameName = newUser(connectionId, { userName: userName.toLowerCase() });
    expect(await store.createScimUser(sameName)).toBe("user-name-taken");
    // A short name that reads as the long one's hashed key is another name.
    const hashed = `sha256:${createHash("sha256").update(userName.toLowerCase()).digest("base64url")}`;
    const lookalike = newUser(connectionId, { userName: hashed, externalId: hashed });
    expect(await store.createScimUser(lookalike)).toBe("created");
    expect(await store.findScimUserByUserName(connectionId, hashed)).toEqual(lookalike);
    expect(await store.findScimUserByUserName(connectionId, userName)).toEqual(long);
    expect(await store.findScimUserByExternalId(connectionId, externalId)).toEqual(long);
    const group = newGroup(connectionId, { displayName: "G".repeat(1_024), memberIds: [long.id] });
    expect(await store.createScimGroup(group)).toBe("created");
    expect(await store.findScimGroupByDisplayName(connectionId, "g".repeat(1_024))).toEqual(group);
  } finally {
    await cleanup();
  }
}

onEachDialect(
  databases,
  "createScimUser, the finds - names and externalIds of 1,024 characters, attributes past 64 KB",
  checkLongValues,
);
