import { expect } from "vitest";
import { auditDraft, joinedSeal } from "./audit-log-upgrade.js";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { storesAtMigration } from "./test-upgrade.js";
import { wholeDatabaseTables } from "./whole-database-tables.js";

/**
 * The tables whose names start with `prefix`, each with its columns (name, type, nullability), by name.
 * The whole-database read is `wholeDatabaseTables`, which reads again after a concurrent drop.
 */
export async function tablesOf(db: AnyKysely, prefix: string) {
  const tables = await wholeDatabaseTables(db);
  return tables
    .filter((table) => table.name.startsWith(prefix))
    .map((table) => ({
      name: table.name.slice(prefix.length),
      columns: table.columns.map(({ name, dataType, isNullable }) => ({ name, dataType, isNullable })),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/**
 * Test support (not part of the package's exports), run on every dialect: a database at 0015
 * with audit entries is migrated to 0016; the webhook tables appear, every other table keeps its
 * columns, the audit log reads as before, and an endpoint can follow it from its head; migrated
 * back down to 0015, the webhook tables are gone and the rest is as it was.
 */
export async function checkWebhooksUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "h", "0015_audit_log");
  const { tablePrefix } = at;
  const { auditLog, webhooks } = at.stores;
  const entries = await auditLog.append([auditDraft("e1", 1, "o1"), auditDraft("e2", 2)], joinedSeal);
  const before = await tablesOf(db, tablePrefix);
  expect(await at.upgrade()).toEqual(migrationsAfter("0015_audit_log"));
  const after = await tablesOf(db, tablePrefix);
  // The later migrations come with it: 0017's signing keys, 0018's OAuth tables, 0019's SSO tables,
  // 0020's SCIM tables.
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
    "webhook_deliveries",
    "webhook_endpoints",
  ];
  expect(after.map((table) => table.name)).toEqual([...before.map((table) => table.name), ...added].sort());
  expect(after.filter((table) => !added.includes(table.name))).toEqual(before);
  expect(await auditLog.list({ order: "asc", limit: 10 })).toEqual(entries);
  const endpoint = {
    id: "w1",
    organizationId: "o1",
    url: "https://hooks.example.com/in",
    events: ["*"],
    enabled: true,
    disabledReason: null,
    secrets: [{ sealed: "sealed-1", expiresAt: null }],
    createdBy: "u1",
    createdAt: 3,
    cursor: 0,
  };
  expect(await webhooks.createEndpoint(endpoint, { maxPerScope: 1 })).toBe("created");
  expect(await webhooks.tryLease("w1", "instance-a", 10, 1_000)).toBe(true);
  const entry = entries[0];
  if (!entry) throw new Error("the audit log appended nothing");
  const delivery = {
    id: "d1",
    endpointId: "w1",
    entryId: entry.id,
    seq: entry.seq,
    type: entry.type,
    status: "pending" as const,
    attempts: 0,
    createdAt: 11,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    nextAttemptAt: 11,
    redelivery: false,
  };
  expect(await webhooks.advance("w1", { owner: "instance-a", now: 11 }, 0, entry.seq, [delivery])).toBe(true);
  expect(await webhooks.findEndpoint("w1")).toEqual({ ...endpoint, cursor: entry.seq });
  expect(await webhooks.pendingDeliveries("w1")).toEqual([delivery]);
  // And back down: the webhook tables go, the others stay as they were.
  await at.downgrade();
  expect(await tablesOf(db, tablePrefix)).toEqual(before);
  expect(await auditLog.list({ order: "asc", limit: 10 })).toEqual(entries);
  await expect(webhooks.findEndpoint("w1")).rejects.toThrow();
}
