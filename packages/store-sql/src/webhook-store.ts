import type { WebhookStore } from "@portcullis/core";
import { type AnyKysely, insertInChunks, inTransaction, type SqlContext } from "./context.js";
import { RELAXED_COMMIT, relaxesCommit } from "./cooldown-store.js";
import { DEFAULT_SWEEP_BATCH_ROWS, deleteInBatches } from "./sweep.js";
import { endpointCreation } from "./webhook-creation.js";
import {
  attemptColumns,
  type DeliveryRow,
  deliveryOf,
  deliveryRow,
  type EndpointRow,
  endpointOf,
  patchColumns,
} from "./webhook-rows.js";

/** The most deliveries one listing returns (`listDeliveries`' `limit`). */
const MAX_LISTED = 1000;

/** Thrown inside a lease's transaction to roll it back: the write was refused. */
const REFUSED = Symbol("refused");

/** The statuses of finished deliveries, which `sweepDeliveries` removes. */
const FINISHED = ["succeeded", "failed"] as const;

/**
 * Runs `work` in one transaction (READ COMMITTED on PostgreSQL and MySQL) and resolves to true
 * when it resolves to true; when it resolves to false, the transaction is rolled back (whatever
 * `work` wrote goes) and the call resolves to false.
 */
async function refusable(
  { db, dialect }: SqlContext,
  work: (trx: AnyKysely) => Promise<boolean>,
): Promise<boolean> {
  try {
    return await inTransaction(
      db,
      async (trx) => {
        if (!(await work(trx))) throw REFUSED;
        return true;
      },
      { readCommitted: dialect !== "sqlite" },
    );
  } catch (error) {
    if (error === REFUSED) return false;
    throw error;
  }
}

/**
 * The endpoint's row, updated (with `set`) under `owner`'s lease, held and not expired at `now`,
 * and `where` when given: one conditional UPDATE, whose row lock makes it a compare and set (the
 * condition is checked again once a concurrent write of the row has committed). True when it
 * matched the row (mysql2 reports found rows, so an update that changes no value counts too).
 */
async function updateUnderLease(
  trx: AnyKysely,
  { table, relaxed }: { table: string; relaxed: boolean },
  endpointId: string,
  { owner, now }: { owner: string; now: number },
  set: Partial<EndpointRow>,
  where?: { cursor: number },
): Promise<boolean> {
  let update = trx
    .updateTable(table)
    .set(set)
    .where("id", "=", endpointId)
    .where("lease_owner", "=", owner)
    .where("lease_until", ">", now);
  if (where) update = update.where("cursor", "=", where.cursor);
  if (relaxed) return (await update.returning(RELAXED_COMMIT).execute()).length === 1;
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The lease's methods: `tryLease`, `releaseLease`, and the writes under it (`advance`, `recordAttempt`). */
function leaseMethods(
  context: SqlContext,
): Pick<WebhookStore, "tryLease" | "releaseLease" | "advance" | "recordAttempt"> {
  const { db, dialect, tables } = context;
  const endpoints = tables.webhookEndpoints;
  const deliveries = tables.webhookDeliveries;
  // The audit log is the outbox, written durably; this bookkeeping lost in a database crash
  // (its last fraction of a second) sends a message again, never loses one: on PostgreSQL its
  // commits do not wait for the WAL flush.
  const relaxed = relaxesCommit(dialect, db);
  const underLease = { table: endpoints, relaxed };
  return {
    async tryLease(endpointId, owner, now, until) {
      const update = db
        .updateTable(endpoints)
        .set({ lease_owner: owner, lease_until: until })
        .where("id", "=", endpointId)
        .where((eb) =>
          eb.or([eb("lease_owner", "is", null), eb("lease_until", "<=", now), eb("lease_owner", "=", owner)]),
        );
      if (relaxed) return (await update.returning(RELAXED_COMMIT).execute()).length === 1;
      return Number((await update.executeTakeFirst()).numUpdatedRows) === 1;
    },

    async releaseLease(endpointId, owner) {
      const update = db
        .updateTable(endpoints)
        .set({ lease_owner: null, lease_until: null })
        .where("id", "=", endpointId)
        .where("lease_owner", "=", owner);
      await (relaxed ? update.returning(RELAXED_COMMIT) : update).execute();
    },

    advance: (endpointId, lease, from, to, added, disable = null) =>
      refusable(context, async (trx) => {
        if (added.some((delivery) => delivery.endpointId !== endpointId)) return false;
        const set: Partial<EndpointRow> = disable
          ? { cursor: to, enabled: 0, disabled_reason: disable }
          : { cursor: to };
        if (!(await updateUnderLease(trx, underLease, endpointId, lease, set, { cursor: from })))
          return false;
        await insertInChunks(trx, deliveries, added.map(deliveryRow));
        return true;
      }),

    recordAttempt: (endpointId, lease, deliveryId, attempt, disable) =>
      refusable(context, async (trx) => {
        // The endpoint's row first (every write of the endpoint's work locks it first), then the delivery's.
        const set: Partial<EndpointRow> = disable
          ? { enabled: 0, disabled_reason: disable }
          : { lease_owner: lease.owner };
        if (!(await updateUnderLease(trx, underLease, endpointId, lease, set))) return false;
        const result = await trx
          .updateTable(deliveries)
          .set(attemptColumns(attempt))
          .where("id", "=", deliveryId)
          .where("endpoint_id", "=", endpointId)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      }),
  };
}

type EndpointMethods = Pick<
  WebhookStore,
  "createEndpoint" | "findEndpoint" | "listEndpoints" | "updateEndpoint" | "deleteEndpoint"
>;

/** The endpoints' methods: create, find, list, update and delete. */
function endpointMethods(context: SqlContext): EndpointMethods {
  const { db, dialect, tables } = context;
  const endpoints = tables.webhookEndpoints;
  const byId = (executor: AnyKysely, id: string) =>
    executor.selectFrom(endpoints).selectAll().where("id", "=", id);
  const find = async (executor: AnyKysely, id: string) => {
    const row = await byId(executor, id).executeTakeFirst();
    return row ? endpointOf(row as EndpointRow) : null;
  };
  return {
    createEndpoint: endpointCreation(context),

    findEndpoint: (id) => find(db, id),

    async listEndpoints(organizationId) {
      let select = db.selectFrom(endpoints).selectAll();
      if (organizationId !== undefined) {
        select = select.where("organization_id", organizationId === null ? "is" : "=", organizationId);
      }
      const rows = await select.orderBy("created_at").orderBy("id").execute();
      return rows.map((row) => endpointOf(row as EndpointRow));
    },

    async updateEndpoint(id, patch) {
      const set = patchColumns(patch);
      if (Object.keys(set).length === 0) return find(db, id);
      const update = (executor: AnyKysely) => executor.updateTable(endpoints).set(set).where("id", "=", id);
      if (dialect !== "mysql") {
        const row = await update(db).returningAll().executeTakeFirst();
        return row ? endpointOf(row as EndpointRow) : null;
      }
      return inTransaction(
        db,
        async (trx) => {
          await update(trx).execute();
          return find(trx, id);
        },
        { readCommitted: true },
      );
    },

    deleteEndpoint: (id) =>
      refusable(context, async (trx) => {
        // The endpoint's row first: a write under its lease that waited for it then finds it gone.
        const { numDeletedRows } = await trx.deleteFrom(endpoints).where("id", "=", id).executeTakeFirst();
        if (Number(numDeletedRows) !== 1) return false;
        await trx.deleteFrom(tables.webhookDeliveries).where("endpoint_id", "=", id).execute();
        return true;
      }),
  };
}

/**
 * `addDelivery`: one transaction that reads the endpoint's row, locked (`SELECT … FOR UPDATE` on
 * PostgreSQL and MySQL; SQLite's write transaction already excludes every other writer), and adds
 * the delivery only when the endpoint is there: a concurrent `deleteEndpoint` either ran before
 * (nothing is added) or waits for this insert and deletes the delivery with the endpoint.
 */
function addition({ db, dialect, tables }: SqlContext): WebhookStore["addDelivery"] {
  return async (delivery) => {
    await inTransaction(
      db,
      async (trx) => {
        const read = trx
          .selectFrom(tables.webhookEndpoints)
          .select("id")
          .where("id", "=", delivery.endpointId);
        if (!(await (dialect === "sqlite" ? read : read.forUpdate()).executeTakeFirst())) return;
        await trx.insertInto(tables.webhookDeliveries).values(deliveryRow(delivery)).execute();
      },
      { readCommitted: dialect !== "sqlite" },
    );
  };
}

type DeliveryMethods = Pick<
  WebhookStore,
  "addDelivery" | "pendingDeliveries" | "listDeliveries" | "findDelivery" | "sweepDeliveries"
>;

/** The deliveries' methods outside the lease: add, list, find and sweep. */
function deliveryMethods(context: SqlContext, sweepBatchRows: number): DeliveryMethods {
  const { db, dialect, tables } = context;
  const deliveries = tables.webhookDeliveries;
  const ofEndpoint = (endpointId: string) =>
    db.selectFrom(deliveries).selectAll().where("endpoint_id", "=", endpointId);
  const find = async (endpointId: string, deliveryId: string) =>
    (await ofEndpoint(endpointId).where("id", "=", deliveryId).executeTakeFirst()) as DeliveryRow | undefined;
  return {
    addDelivery: addition(context),

    async pendingDeliveries(endpointId) {
      const rows = await ofEndpoint(endpointId)
        .where("status", "=", "pending")
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => deliveryOf(row as DeliveryRow));
    },

    async listDeliveries(endpointId, { limit, before }) {
      const count = Math.min(Math.floor(limit), MAX_LISTED);
      if (!(count >= 1)) return [];
      let select = ofEndpoint(endpointId);
      if (before !== undefined) {
        const last = await find(endpointId, before);
        if (!last) return [];
        // `(created_at, id) < (last's)`, written so that the first condition bounds the index range.
        select = select
          .where("created_at", "<=", last.created_at)
          .where((eb) => eb.or([eb("created_at", "<", last.created_at), eb("id", "<", last.id)]));
      }
      const rows = await select.orderBy("created_at", "desc").orderBy("id", "desc").limit(count).execute();
      return rows.map((row) => deliveryOf(row as DeliveryRow));
    },

    async findDelivery(endpointId, deliveryId) {
      const row = await find(endpointId, deliveryId);
      return row ? deliveryOf(row) : null;
    },

    async sweepDeliveries(olderThan) {
      let removed = 0;
      for (const status of FINISHED) {
        removed += await deleteInBatches(
          db,
          dialect,
          {
            table: deliveries,
            column: "created_at",
            before: olderThan,
            strict: true,
            equals: ["status", status],
          },
          sweepBatchRows,
        );
      }
      return removed;
    },
  };
}

/**
 * Webhook endpoints in `<prefix>webhook_endpoints` and their deliveries in
 * `<prefix>webhook_deliveries` (migration `0016_webhooks`). `createEndpoint` counts the scope's
 * endpoints and inserts in one transaction that holds a lock on the scope (`endpointCreation`),
 * so concurrent creations never overshoot `maxPerScope`. The lease is two columns of the
 * endpoint's row: `tryLease` is one conditional UPDATE (free, expired or already the owner's), so
 * of concurrent callers at most one matches the row. `advance` and `recordAttempt` are each one
 * transaction (READ COMMITTED on PostgreSQL and MySQL) whose first statement is the conditional
 * UPDATE of the endpoint's row (lease held and not expired; for `advance`, the cursor still at
 * `from`; for `advance` with `disable`, the endpoint disabled in the same UPDATE): only when it
 * matched do the deliveries' inserts (`insertInChunks`) or the delivery's update
 * follow; otherwise, or when a delivery is not the endpoint's, the transaction is rolled back and
 * the call resolves to false. The endpoint's row is always locked before a delivery's, by every write, so they never
 * wait for each other in a cycle. `sweepDeliveries` deletes finished deliveries in batches of
 * `sweepBatchRows` through the index on `(status, created_at)`.
 */
export function createSqlWebhookStore(
  context: SqlContext,
  sweepBatchRows = DEFAULT_SWEEP_BATCH_ROWS,
): WebhookStore {
  return {
    ...endpointMethods(context),
    ...leaseMethods(context),
    ...deliveryMethods(context, sweepBatchRows),
  };
}
