import { randomBytes } from "node:crypto";
import type { Clock } from "@portcullis/core";
import { runWebhooksAdapterSuite } from "@portcullis/testing";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { postgresSchemaForFile } from "./test-databases.js";
import { startExpress } from "./test-servers.js";

// Webhooks through Express with every store in SQL on PostgreSQL (each test's own tables, the
// audit log among them): endpoints, a delivery to a receiver on 127.0.0.1 and its redelivery.
const postgres = postgresSchemaForFile();

/** Every store the suite needs, the audit log too, on new tables migrated before the first call. */
function sqlStoresWithAuditLog(db: AnyKysely, clock: Clock) {
  const stores = createSqlStores({ db, clock, tablePrefix: `t${randomBytes(5).toString("hex")}_` });
  const ready = stores.migrate();
  const migrated = <S extends object>(store: S): S =>
    Object.fromEntries(
      Object.entries(store).map(([name, method]) => [
        name,
        async (...args: unknown[]) => {
          await ready;
          return (method as (...args: unknown[]) => unknown).apply(store, args);
        },
      ]),
    ) as S;
  return {
    users: migrated(stores.users),
    sessions: migrated(stores.sessions),
    allowlist: migrated(stores.allowlist),
    joint: migrated(stores.joint),
    singleUseTokens: migrated(stores.singleUseTokens),
    cooldowns: migrated(stores.cooldowns),
    activity: migrated(stores.activity),
    organizations: migrated(stores.organizations),
    apiKeys: migrated(stores.apiKeys),
    auditLog: migrated(stores.auditLog),
    webhooks: migrated(stores.webhooks),
  };
}

runWebhooksAdapterSuite({
  name: "express + postgres",
  start: startExpress,
  createStores: (clock) => sqlStoresWithAuditLog(postgres.db, clock),
});
