import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import {
  canStartPostgres,
  postgresDatabase,
  postgresDb,
  SHARED_SERVER_TIMEOUTS,
  usePostgres,
} from "./test-databases.js";
import { postgresServerForSuite } from "./test-postgres-server.js";
import { canRunKillChild, killMidDelivery } from "./test-webhook-kill.js";
import { outageDuringBurst, receiverDownForHours, twoInstancesBurst } from "./test-webhook-scenarios.js";

// docs/webhooks.md ("Delivery guarantees"): the audit log is the outbox, so a delivery is never
// lost to a killed server, a receiver down for hours, a database that goes away mid-burst, or two
// instances sharing the work. Each test prints its figures.

const newPrefix = () => `wf${randomBytes(4).toString("hex")}_`;

describe("webhooks on PostgreSQL (the shared test server)", () => {
  let server: Awaited<ReturnType<typeof usePostgres>> | undefined;
  let database: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  const opened: AnyKysely[] = [];
  beforeAll(async () => {
    server = await usePostgres();
    // A database of the file's own: the kill test's child process opens it by URL.
    database = await postgresDatabase(server.url);
  }, 60_000);
  afterAll(async () => {
    for (const db of opened) await db.destroy();
    await database?.drop();
    await server?.stop();
  });

  /** Stores on a new pool of the file's database, on the tables under `tablePrefix`. */
  const openStores = (tablePrefix: string) => {
    const db = postgresDb(database?.url ?? "", undefined, 10, SHARED_SERVER_TIMEOUTS);
    opened.push(db);
    return createSqlStores({ db, tablePrefix });
  };
  const migratedStores = async (tablePrefix = newPrefix()) => {
    const stores = openStores(tablePrefix);
    await stores.migrate();
    return stores;
  };

  it.skipIf(!canRunKillChild(false))(
    "webhooks - kill -9 between the answered calls and their delivery: the next instance delivers every event, in order",
    async () => {
      const tablePrefix = newPrefix();
      const stores = await migratedStores(tablePrefix);
      await killMidDelivery("PostgreSQL", stores, {
        kind: "postgres",
        url: database?.url ?? "",
        tablePrefix,
      });
    },
    120_000,
  );

  it("webhooks - a receiver down for three hours of the back-off (scaled): everything arrives, in order", async () => {
    await receiverDownForHours("PostgreSQL", await migratedStores());
  }, 60_000);
});

// A server of the test's own (no fsync): the burst of two instances measures the engine rather
// than the disk, and the outages stop and freeze it.
describe.skipIf(!canStartPostgres)("webhooks on a PostgreSQL of the test's own", () => {
  const server = postgresServerForSuite();

  it("webhooks - two instances deliver a burst of 1,000 events: none lost, in order, duplicates under 1 %", async () => {
    const tablePrefix = newPrefix();
    const opened: AnyKysely[] = [];
    const open = async () => {
      const db = postgresDb(server.url);
      opened.push(db);
      return createSqlStores({ db, tablePrefix });
    };
    try {
      await (await open()).migrate();
      await twoInstancesBurst("PostgreSQL", open);
    } finally {
      for (const db of opened) await db.destroy();
    }
  }, 120_000);

  /** Stores behind the recommended pool (`postgresDb`: a hang fails fast), on tables of their own. */
  async function withStores(run: (stores: ReturnType<typeof createSqlStores>) => Promise<void>) {
    const db = postgresDb(server.url);
    try {
      const stores = createSqlStores({ db, tablePrefix: newPrefix() });
      await stores.migrate();
      await run(stores);
    } finally {
      await db.destroy();
    }
  }

  it("webhooks - PostgreSQL stopped in the middle of a delivery burst, then started: every event arrives, in order", async () => {
    await withStores((stores) =>
      outageDuringBurst("PostgreSQL stopped", stores, { begin: server.stop, end: server.start }),
    );
  }, 90_000);

  it("webhooks - PostgreSQL frozen (SIGSTOP) in the middle of a delivery burst, then resumed: every event arrives, in order", async () => {
    await withStores((stores) =>
      outageDuringBurst("PostgreSQL frozen", stores, {
        begin: () => server.signal("SIGSTOP"),
        end: () => server.signal("SIGCONT"),
      }),
    );
  }, 90_000);
});
