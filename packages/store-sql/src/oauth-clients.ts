import type { OAuthStore } from "@portcullis/core";
import { insertUnlessTaken, inTransaction, type SqlContext } from "./context.js";
import { type ClientRow, clientOf, clientPatchColumns, clientRow } from "./oauth-rows.js";

/** The clients' part of `OAuthStore`. */
export type ClientMethods = Pick<
  OAuthStore,
  "createOAuthClient" | "getOAuthClient" | "listOAuthClients" | "updateOAuthClient" | "deleteOAuthClient"
>;

/**
 * The clients' methods, on `<prefix>oauth_clients`: listed in `client_id` order (byte order on
 * every dialect); deleting one deletes its grants, consents and device authorizations in the same
 * transaction, the client's row first, so a grant being created for it waits for the deletion
 * (and finds no client) or is deleted with the rest.
 */
export function clientMethods(context: SqlContext): ClientMethods {
  const { db, tables } = context;
  const table = tables.oauthClients;
  const find = async (clientId: string) => {
    const row = await db.selectFrom(table).selectAll().where("client_id", "=", clientId).executeTakeFirst();
    return row ? clientOf(row as ClientRow) : null;
  };
  return {
    createOAuthClient: (client) => insertUnlessTaken(context, table, clientRow(client)),

    getOAuthClient: find,

    async listOAuthClients({ after, limit }) {
      let select = db.selectFrom(table).selectAll();
      if (after !== undefined) select = select.where("client_id", ">", after);
      const rows = await select.orderBy("client_id").limit(limit).execute();
      return rows.map((row) => clientOf(row as ClientRow));
    },

    async updateOAuthClient(clientId, patch) {
      const set = clientPatchColumns(patch);
      if (Object.keys(set).length === 0) return (await find(clientId)) !== null;
      // Matched rows on every dialect (mysql2 reports found rows by default), changed or not.
      const result = await db
        .updateTable(table)
        .set(set)
        .where("client_id", "=", clientId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    deleteOAuthClient: (clientId) =>
      inTransaction(db, async (trx) => {
        const { numDeletedRows } = await trx
          .deleteFrom(table)
          .where("client_id", "=", clientId)
          .executeTakeFirst();
        if (Number(numDeletedRows) !== 1) return false;
        for (const owned of [tables.oauthGrants, tables.oauthConsents, tables.oauthDevices]) {
          await trx.deleteFrom(owned).where("client_id", "=", clientId).execute();
        }
        return true;
      }),
  };
}
