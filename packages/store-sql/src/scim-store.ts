import type { ScimStore } from "@portcullis/core";
import { type AnyKysely, isDuplicateKey, type SqlContext } from "./context.js";
import { leaveGroups, sqlScimGroupReads, sqlScimGroupWrites } from "./scim-groups.js";
import {
  type ScimUserRow,
  scimKey,
  scimNameKey,
  scimUserOf,
  scimUserPatchColumns,
  scimUserRow,
} from "./scim-rows.js";
import { compareAndSet, countOf, createUntilTaken, pageOf, transaction } from "./scim-statements.js";

/**
 * Each SSO connection's SCIM directory in the three tables of `0020_scim` (`<prefix>scim_users`,
 * `scim_groups`, `scim_group_members`). A connection's one user of a name, one user per account
 * and one group of a name are the databases' unique keys, so concurrent calls cannot both win; a
 * unique key refused is told apart by reading the rival. Updates are one `UPDATE … where version =
 * ?` (compare-and-set) followed, in the same transaction, by the member rows' changes and the read
 * of the result; a name taken makes the UPDATE fail and rolls the transaction back.
 */
export function createSqlScimStore(context: SqlContext): ScimStore {
  const { db, tables } = context;
  const users = tables.scimUsers;
  const userWhere = (connectionId: string, column: string, value: string) =>
    findUser(context, db, connectionId, column, value);
  return {
    ...sqlScimUserWrites(context),
    findScimUser: (connectionId, id) => userWhere(connectionId, "id", id),
    findScimUserByUserName: (connectionId, userName) =>
      userWhere(connectionId, "user_name_key", scimNameKey(userName)),
    findScimUserByExternalId: (connectionId, externalId) =>
      userWhere(connectionId, "external_id_key", scimKey(externalId)),
    findScimUserByUserId: (connectionId, userId) => userWhere(connectionId, "user_id", userId),

    async listScimUsers(connectionId, page) {
      const rows = await pageOf(db, users, connectionId, page).execute();
      return rows.map((row) => scimUserOf(row as ScimUserRow));
    },

    countScimUsers: (connectionId) => countOf(db, users, connectionId),

    ...sqlScimGroupReads(context),
    ...sqlScimGroupWrites(context),

    removeConnectionScim: (connectionId) =>
      transaction(context, async (trx) => {
        // Users, then groups, then members: the order the other transactions take their locks in.
        for (const table of [users, tables.scimGroups, tables.scimGroupMembers]) {
          await trx.deleteFrom(table).where("connection_id", "=", connectionId).execute();
        }
      }),
  };
}

/** The connection's user whose `column` is `value` (the lowest id of several), read through `executor`, or null. */
async function findUser(
  { tables }: SqlContext,
  executor: AnyKysely,
  connectionId: string,
  column: string,
  value: string,
) {
  const row = await executor
    .selectFrom(tables.scimUsers)
    .selectAll()
    .where("connection_id", "=", connectionId)
    .where(column, "=", value)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return row ? scimUserOf(row as ScimUserRow) : null;
}

/** The users' writes of `createSqlScimStore`. */
function sqlScimUserWrites(
  context: SqlContext,
): Pick<ScimStore, "createScimUser" | "updateScimUser" | "deleteScimUser"> {
  const { db, tables } = context;
  const users = tables.scimUsers;
  return {
    async createScimUser(user) {
      const { connectionId } = user;
      return createUntilTaken(
        context,
        users,
        user.id,
        async () => {
          if (await findUser(context, db, connectionId, "user_name_key", scimNameKey(user.userName)))
            return "user-name-taken";
          if (await findUser(context, db, connectionId, "user_id", user.userId)) return "user-taken";
          return null;
        },
        async (trx) => {
          await trx.insertInto(users).values(scimUserRow(user)).execute();
        },
      );
    },

    async updateScimUser(connectionId, id, version, patch) {
      try {
        return await transaction(context, async (trx) => {
          const columns = scimUserPatchColumns(patch);
          const outcome = await compareAndSet(trx, users, connectionId, id, version, columns);
          return outcome === "updated" ? findUser(context, trx, connectionId, "id", id) : outcome;
        });
      } catch (error) {
        // Only the name's unique key can refuse the UPDATE; the transaction rolled back.
        if (isDuplicateKey(error)) return "user-name-taken";
        throw error;
      }
    },

    deleteScimUser: (connectionId, id) =>
      transaction(context, async (trx) => {
        const { numDeletedRows } = await trx
          .deleteFrom(users)
          .where("id", "=", id)
          .where("connection_id", "=", connectionId)
          .executeTakeFirst();
        if (Number(numDeletedRows) === 0) return false;
        await leaveGroups(context, trx, connectionId, id);
        return true;
      }),
  };
}
