import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WebhookDelivery, WebhookEndpoint, WebhookStore } from "@portcullis/core";
import { runWebhookStoreSuite } from "@portcullis/testing";
import { Kysely, MysqlDialect } from "kysely";
import { createPool } from "mysql2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import {
  freshWebhookStore,
  postgresDatabase,
  postgresDb,
  postgresSchemaForFile,
  sqliteDb,
  usePostgres,
} from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";
import { checkWebhooksUpgrade } from "./webhook-upgrade.js";

// The webhook store's leases and endpoint limits written from two pools at once (two connections to one SQLite file,
// two PostgreSQL pools, two MariaDB pools), which the conformance suite (run on each dialect by
// `runSqlStoreSuites`) cannot do through one; the suite with sweeps of one row a batch; then the
// upgrade to 0016 on each dialect.
const postgres = postgresSchemaForFile();
const mysqlServer = await useMysql();
const mysql = mysqlServer ? await mysqlDatabase(mysqlServer.url) : null;
let dir: string;
let file: AnyKysely;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-webhooks-"));
  file = sqliteDb(join(dir, "webhooks.db"));
});
afterAll(async () => {
  await file?.destroy();
  await rm(dir, { recursive: true, force: true });
  await mysql?.drop();
  await mysqlServer?.stop();
});

// Sweeps of one row a batch: the batches follow each other, for each status, until one deletes nothing.
runWebhookStoreSuite({ name: "postgres, sweeps of 1", create: () => freshWebhookStore(postgres.db, 1) });

const LEASE_MS = 30_000;
const T0 = 1_700_000_000_000;

const delivery = (endpointId: string, seq: number, redelivery = false): WebhookDelivery => ({
  id: randomBytes(16).toString("hex"),
  endpointId,
  entryId: `entry-${seq}`,
  seq,
  type: "login.succeeded",
  status: "pending",
  attempts: 0,
  createdAt: T0 + seq,
  lastAttemptAt: null,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: T0 + seq,
  redelivery,
});

/** `count` calls of `call`, started together, alternating between the two stores. */
const racing = <T>(
  stores: WebhookStore[],
  count: number,
  call: (store: WebhookStore, n: number) => Promise<T>,
) => Promise.all(Array.from({ length: count }, (_, n) => call(stores[n % stores.length] as WebhookStore, n)));

/**
 * Five rounds on one endpoint, each call of a round alternating between `a`'s pool and `b`'s:
 * 20 owners race for the lease (free in the first round, expired in the next ones): exactly one
 * gets it; 20 advances by the holder from the same cursor: exactly one moves it and adds its
 * delivery; the previous round's holder, racing the new holder's attempt on that delivery, is
 * refused (nothing of its attempt, nor its disabling, is written).
 */
async function checkLeaseRaces(a: AnyKysely, b: AnyKysely): Promise<void> {
  const { store, tablePrefix, cleanup } = await freshWebhookStore(a);
  const stores = [store, createSqlStores({ db: b, tablePrefix }).webhooks];
  try {
    const id = randomBytes(16).toString("hex");
    await store.createEndpoint(
      {
        id,
        organizationId: null,
        url: "https://hooks.example.com/in",
        events: ["*"],
        enabled: true,
        disabledReason: null,
        secrets: [{ sealed: "sealed", expiresAt: null }],
        createdBy: null,
        createdAt: T0,
        cursor: 0,
      },
      { maxPerScope: 100 },
    );
    let previous: string | null = null;
    const kept: WebhookDelivery[] = [];
    for (let round = 0; round < 5; round++) {
      const now = T0 + round * LEASE_MS;
      const owners = await racing(stores, 20, (one, n) =>
        one.tryLease(id, `r${round}-${n}`, now, now + LEASE_MS),
      );
      expect(owners.filter(Boolean)).toHaveLength(1);
      const owner = `r${round}-${owners.indexOf(true)}`;
      const from = round * 100;
      const made = Array.from({ length: 20 }, (_, n) => delivery(id, from + n + 1));
      const moved = await racing(stores, 20, (one, n) =>
        one.advance(id, { owner, now }, from, from + 100, made[n] ?? null),
      );
      expect(moved.filter(Boolean)).toHaveLength(1);
      const winner = made[moved.indexOf(true)] as WebhookDelivery;
      const attempt = {
        status: "succeeded" as const,
        attempts: 1,
        lastAttemptAt: now,
        lastStatusCode: 200,
        lastError: null,
        nextAttemptAt: null,
      };
      const [mine, stale] = await Promise.all([
        stores[0]?.recordAttempt(id, { owner, now }, winner.id, attempt, null),
        previous === null
          ? Promise.resolve(false)
          : stores[1]?.recordAttempt(
              id,
              { owner: previous, now },
              winner.id,
              { ...attempt, status: "failed" },
              "failing",
            ),
      ]);
      expect([mine, stale]).toEqual([true, false]);
      kept.push({ ...winner, ...attempt });
      previous = owner;
    }
    expect(await store.findEndpoint(id)).toMatchObject({ cursor: 500, enabled: true, disabledReason: null });
    expect(await store.listDeliveries(id, { limit: 100 })).toEqual([...kept].reverse());
  } finally {
    await cleanup();
  }
}

/**
 * Redeliveries added from both pools while the endpoint is deleted: each lands before the delete
 * (and goes with it) or finds the endpoint gone; none is left behind.
 */
async function checkDeleteRace(a: AnyKysely, b: AnyKysely): Promise<void> {
  const { store, tablePrefix, cleanup } = await freshWebhookStore(a);
  const stores = [store, createSqlStores({ db: b, tablePrefix }).webhooks];
  try {
    for (let round = 0; round < 3; round++) {
      const id = randomBytes(16).toString("hex");
      await store.createEndpoint(
        {
          id,
          organizationId: "org",
          url: "https://hooks.example.com/in",
          events: ["*"],
          enabled: true,
          disabledReason: null,
          secrets: [],
          createdBy: null,
          createdAt: T0,
          cursor: 0,
        },
        { maxPerScope: 100 },
      );
      const made = Array.from({ length: 20 }, (_, n) => delivery(id, n + 1, true));
      const [deleted] = await Promise.all([
        stores[1]?.deleteEndpoint(id),
        racing(stores, 20, (one, n) => one.addDelivery(made[n] as WebhookDelivery)),
      ]);
      expect(deleted).toBe(true);
      expect(await store.listDeliveries(id, { limit: 100 })).toEqual([]);
      for (const one of made) expect(await store.findDelivery(id, one.id)).toBeNull();
    }
  } finally {
    await cleanup();
  }
}

/**
 * 20 creations in one organization and 20 of the deployment's, started together, alternating
 * between `a`'s pool and `b`'s, with `maxPerScope` 3: exactly 3 of each scope are created, and
 * those are the scope's endpoints.
 */
async function checkCreateRace(a: AnyKysely, b: AnyKysely): Promise<void> {
  const { store, tablePrefix, cleanup } = await freshWebhookStore(a);
  const stores = [store, createSqlStores({ db: b, tablePrefix }).webhooks];
  try {
    const endpointIn = (organizationId: string | null, n: number) => ({
      id: randomBytes(16).toString("hex"),
      organizationId,
      url: "https://hooks.example.com/in",
      events: ["*"],
      enabled: true,
      disabledReason: null,
      secrets: [],
      createdBy: null,
      createdAt: T0 + n,
      cursor: 0,
    });
    const made = Array.from({ length: 40 }, (_, n) => endpointIn(n % 2 === 0 ? "org" : null, n));
    const outcomes = await racing(stores, 40, (one, n) =>
      one.createEndpoint(made[n] as WebhookEndpoint, { maxPerScope: 3 }),
    );
    for (const scope of ["org", null]) {
      const created = made.filter(
        (endpoint, n) => endpoint.organizationId === scope && outcomes[n] === "created",
      );
      expect(created).toHaveLength(3);
      expect(await store.listEndpoints(scope)).toEqual(created);
    }
    expect(outcomes.filter((outcome) => outcome === "limit-reached")).toHaveLength(34);
  } finally {
    await cleanup();
  }
}

/** A second MariaDB pool on the database of `mysql`. */
async function secondMysqlPool(): Promise<AnyKysely> {
  if (!mysql || !mysqlServer) throw new Error("unreachable: skipped without a server");
  const url = new URL(mysqlServer.url);
  url.pathname = `/${(await mysql.db.selectNoFrom((eb) => eb.fn<string>("database").as("name")).executeTakeFirstOrThrow()).name}`;
  return new Kysely({
    dialect: new MysqlDialect({ pool: createPool({ uri: url.toString(), connectionLimit: 10 }) }),
  }) as AnyKysely;
}

describe("webhooks: leases from two pools at once", () => {
  it("tryLease, advance, recordAttempt, deleteEndpoint, createEndpoint - races through two PostgreSQL pools: one winner each", async () => {
    const server = await usePostgres();
    const database = await postgresDatabase(server.url);
    const timeouts = { statementTimeoutMs: 5_000, lockTimeoutMs: 2_500, connectionTimeoutMs: 5_000 };
    const [a, b] = [
      postgresDb(database.url, undefined, 10, timeouts),
      postgresDb(database.url, undefined, 10, timeouts),
    ];
    try {
      await checkLeaseRaces(a, b);
      await checkDeleteRace(a, b);
      await checkCreateRace(a, b);
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
      await database.drop();
      await server.stop();
    }
  });

  it("tryLease, advance, recordAttempt, deleteEndpoint, createEndpoint - races through two connections to one SQLite file: one winner each", async () => {
    const other = sqliteDb(join(dir, "webhooks.db"));
    try {
      await checkLeaseRaces(file, other);
      await checkDeleteRace(file, other);
      await checkCreateRace(file, other);
    } finally {
      await other.destroy();
    }
  });

  it.skipIf(!mysql)(
    "tryLease, advance, recordAttempt, deleteEndpoint, createEndpoint - races through two MariaDB pools: one winner each",
    async () => {
      if (!mysql) throw new Error("unreachable: skipped without a server");
      const other = await secondMysqlPool();
      try {
        await checkLeaseRaces(mysql.db, other);
        await checkDeleteRace(mysql.db, other);
        await checkCreateRace(mysql.db, other);
      } finally {
        await other.destroy();
      }
    },
  );
});

describe("webhooks: upgrade", () => {
  it("migrate - 0016 adds the webhook tables beside the audit log, and nothing else changes (sqlite)", async () => {
    const db = sqliteDb();
    try {
      await checkWebhooksUpgrade(db);
    } finally {
      await db.destroy();
    }
  });

  it("migrate - 0016 adds the webhook tables beside the audit log, and nothing else changes (postgres)", async () => {
    await checkWebhooksUpgrade(postgres.db);
  });

  it.skipIf(!mysql)(
    "migrate - 0016 adds the webhook tables beside the audit log, and nothing else changes (mysql)",
    async () => {
      if (mysql) await checkWebhooksUpgrade(mysql.db);
    },
  );
});
