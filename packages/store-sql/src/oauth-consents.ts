import type { OAuthStore } from "@portcullis/core";
import type { SqlContext } from "./context.js";
import { type ConsentRow, consentOf, consentRow } from "./oauth-rows.js";

/** The most consents `listOAuthConsents` answers. */
const MAX_LISTED_CONSENTS = 1000;

/** The consents' part of `OAuthStore`. */
export type ConsentMethods = Pick<
  OAuthStore,
  "saveOAuthConsent" | "getOAuthConsent" | "listOAuthConsents" | "deleteOAuthConsent"
>;

/**
 * The consents' methods, on `<prefix>oauth_consents`, keyed by (user, client). Saving is one
 * upsert that replaces the scopes and `updated_at` of a consent already there and keeps its
 * `created_at`; a user's listing reads the index on (`user_id`, `updated_at`), the latest first
 * (ties by client id).
 */
export function consentMethods({ db, dialect, tables }: SqlContext): ConsentMethods {
  const table = tables.oauthConsents;
  const byKey = (userId: string, clientId: string) =>
    db.selectFrom(table).selectAll().where("user_id", "=", userId).where("client_id", "=", clientId);
  return {
    async saveOAuthConsent(consent) {
      const row = consentRow(consent);
      const replaced = { scopes: row.scopes, updated_at: row.updated_at };
      const insert = db.insertInto(table).values(row);
      await (dialect === "mysql"
        ? insert.onDuplicateKeyUpdate(replaced)
        : insert.onConflict((conflict) => conflict.columns(["user_id", "client_id"]).doUpdateSet(replaced))
      ).execute();
    },

    async getOAuthConsent(userId, clientId) {
      const row = await byKey(userId, clientId).executeTakeFirst();
      return row ? consentOf(row as ConsentRow) : null;
    },

    async listOAuthConsents(userId) {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where("user_id", "=", userId)
        .orderBy("updated_at", "desc")
        .orderBy("client_id")
        .limit(MAX_LISTED_CONSENTS)
        .execute();
      return rows.map((row) => consentOf(row as ConsentRow));
    },

    async deleteOAuthConsent(userId, clientId) {
      const { numDeletedRows } = await db
        .deleteFrom(table)
        .where("user_id", "=", userId)
        .where("client_id", "=", clientId)
        .executeTakeFirst();
      return Number(numDeletedRows) > 0;
    },
  };
}
