import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { WebhookStore } from "@portcullis/core";
import { sql } from "kysely";
import { type AnyKysely, inTransaction, type SqlContext } from "./context.js";
import { endpointRow } from "./webhook-rows.js";

/** How long a creation waits in all for another creation in the same scope, in seconds. */
const SCOPE_LOCK_WAIT_SECONDS = 5;

/** The longest pause between two tries of a PostgreSQL scope's lock, in milliseconds. */
const MAX_LOCK_PAUSE_MS = 50;

type Outcome = "created" | "limit-reached";

/**
 * `createEndpoint`: counts the scope's endpoints and inserts in one transaction that holds a lock
 * on the scope (the organization, or the deployment) until it ends, so concurrent creations in
 * one scope take turns and never overshoot `maxPerScope`, as the API key store's `createApiKey`
 * does for an owner. PostgreSQL: `pg_try_advisory_xact_lock`, tried again after a short pause
 * while another creation holds it (`tryOnPostgres`); MySQL: `GET_LOCK` on the transaction's
 * connection, released after the commit; SQLite: the write lock of `BEGIN IMMEDIATE`. Under READ
 * COMMITTED the count, a statement after the lock, sees every endpoint committed before it. The
 * count reads the `(organization_id, created_at, id)` index.
 */
export function endpointCreation({ db, dialect, tables }: SqlContext): WebhookStore["createEndpoint"] {
  const table = tables.webhookEndpoints;
  return async (endpoint, { maxPerScope }) => {
    const scope = endpoint.organizationId;
    const full = async (trx: AnyKysely) => {
      const { n } = await trx
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .where("organization_id", scope === null ? "is" : "=", scope)
        .executeTakeFirstOrThrow();
      return Number(n) >= maxPerScope;
    };
    const work = async (trx: AnyKysely): Promise<Outcome> => {
      if (await full(trx)) return "limit-reached";
      await trx.insertInto(table).values(endpointRow(endpoint)).execute();
      return "created";
    };
    const key = `${table}:${scope === null ? "-" : `o:${scope}`}`;
    if (dialect === "postgres") return tryOnPostgres(db, key, full, work);
    if (dialect !== "mysql" || db.isTransaction)
      return inTransaction(db, work, { readCommitted: dialect !== "sqlite" });
    return onMysql(db, key, work);
  };
}

/** `work` in a READ COMMITTED transaction on a connection that holds MySQL's named lock `key`. */
function onMysql(db: AnyKysely, key: string, work: (trx: AnyKysely) => Promise<Outcome>): Promise<Outcome> {
  const name = `portcullis:${createHash("sha256").update(key).digest("base64url").slice(0, 40)}`;
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{
      locked: number | null;
    }>`select get_lock(${name}, ${SCOPE_LOCK_WAIT_SECONDS}) as locked`.execute(connection);
    if (Number(rows[0]?.locked) !== 1) throw new Error("the webhook scope's lock was not granted in time");
    try {
      return await inTransaction(connection, work, { readCommitted: true });
    } finally {
      // A connection that fails here is gone, and MySQL releases its locks with it.
      await sql`select release_lock(${name})`.execute(connection).catch(() => {});
    }
  });
}

/**
 * PostgreSQL's turn for one scope: a READ COMMITTED transaction that answers `limit-reached` at
 * once when the scope is `full` (a scope at its limit waits for nobody), else takes the scope's
 * advisory lock without waiting and runs `work`. When another creation holds the lock, the
 * transaction ends and a new one tries again after a short pause, up to `SCOPE_LOCK_WAIT_SECONDS`
 * in all: a waiting creation holds no connection and never meets the pool's `lock_timeout`.
 */
async function tryOnPostgres(
  db: AnyKysely,
  key: string,
  full: (trx: AnyKysely) => Promise<boolean>,
  work: (trx: AnyKysely) => Promise<Outcome>,
): Promise<Outcome> {
  const giveUpAt = performance.now() + SCOPE_LOCK_WAIT_SECONDS * 1_000;
  for (let pauseMs = 2; ; pauseMs = Math.min(pauseMs * 2, MAX_LOCK_PAUSE_MS)) {
    const outcome = await inTransaction(
      db,
      async (trx) => {
        if (await full(trx)) return { done: "limit-reached" as const };
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(trx);
        return rows[0]?.locked === true ? { done: await work(trx) } : null;
      },
      { readCommitted: true },
    );
    if (outcome) return outcome.done;
    if (performance.now() >= giveUpAt) throw new Error("the webhook scope's lock was not granted in time");
    // Jittered, so the creations that missed the lock together do not all come back together.
    await sleep(pauseMs * (0.5 + Math.random()));
  }
}
