import type { SigningKeyRecord, SigningKeyStore } from "@portcullis/core";
import { type SqlContext, toNumber } from "./context.js";
import { insertWithinLimit } from "./insert-within-limit.js";

/** A row of `<prefix>signing_keys`; times are milliseconds. */
interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: string;
  sealed_private_key: string;
  created_at: number | string;
  activates_at: number | string;
}

const fromRow = (row: SigningKeyRow): SigningKeyRecord => ({
  kid: row.kid,
  alg: row.alg,
  publicJwk: row.public_jwk,
  sealedPrivateKey: row.sealed_private_key,
  createdAt: toNumber(row.created_at),
  activatesAt: toNumber(row.activates_at),
});

/**
 * The OAuth provider's signing keys in `<prefix>signing_keys`. `addSigningKey` checks for a key
 * created since the bound and inserts under one lock of the table's own (`insertWithinLimit`:
 * PostgreSQL's advisory lock, MySQL's `GET_LOCK`, SQLite's write lock), so concurrent rotations
 * add one key; a `kid` already stored fails the insert on the primary key.
 */
export function createSqlSigningKeyStore(context: SqlContext): SigningKeyStore {
  const { db, tables } = context;
  const table = tables.signingKeys;
  return {
    async listSigningKeys() {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .orderBy("created_at", "desc")
        .orderBy("kid", "desc")
        .execute();
      return rows.map((row) => fromRow(row as SigningKeyRow));
    },

    async addSigningKey(key, unlessCreatedSince) {
      const outcome = await insertWithinLimit(
        context,
        { key: `signing-keys:${table}`, lockName: "the signing keys'" },
        async (trx) =>
          (await trx
            .selectFrom(table)
            .select("kid")
            .where("created_at", ">=", unlessCreatedSince)
            .limit(1)
            .executeTakeFirst()) !== undefined,
        async (trx) => {
          await trx
            .insertInto(table)
            .values({
              kid: key.kid,
              alg: key.alg,
              public_jwk: key.publicJwk,
              sealed_private_key: key.sealedPrivateKey,
              created_at: key.createdAt,
              activates_at: key.activatesAt,
            })
            .execute();
        },
      );
      return outcome === "created";
    },

    async deleteSigningKeys(kids) {
      const unique = [...new Set(kids)];
      if (unique.length === 0) return 0;
      const result = await db.deleteFrom(table).where("kid", "in", unique).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
