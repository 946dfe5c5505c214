import type { ScimGroupRecord, ScimStore } from "@portcullis/core";
import { type AnyKysely, isDuplicateKey, type SqlContext } from "./context.js";
import {
  type ScimGroupRow,
  scimGroupOf,
  scimGroupPatchColumns,
  scimGroupRow,
  scimKey,
  scimNameKey,
} from "./scim-rows.js";
import { chunks, compareAndSet, countOf, createUntilTaken, pageOf, transaction } from "./scim-statements.js";

/** The groups' reads of `createSqlScimStore`: each group with its members' ids. */
export function sqlScimGroupReads(
  context: SqlContext,
): Pick<
  ScimStore,
  | "findScimGroup"
  | "findScimGroupByDisplayName"
  | "findScimGroupByExternalId"
  | "listScimGroups"
  | "countScimGroups"
  | "listScimGroupsOfUsers"
> {
  const { db, tables } = context;
  const groups = tables.scimGroups;
  return {
    findScimGroup: (connectionId, id) => findGroup(context, db, connectionId, "id", id),
    findScimGroupByDisplayName: (connectionId, displayName) =>
      findGroup(context, db, connectionId, "display_name_key", scimNameKey(displayName)),
    findScimGroupByExternalId: (connectionId, externalId) =>
      findGroup(context, db, connectionId, "external_id_key", scimKey(externalId)),

    async listScimGroups(connectionId, page) {
      const rows = await pageOf(db, groups, connectionId, page).execute();
      return withMembers(context, db, connectionId, rows as ScimGroupRow[]);
    },

    countScimGroups: (connectionId) => countOf(db, groups, connectionId),

    async listScimGroupsOfUsers(connectionId, userScimIds) {
      if (userScimIds.length === 0) return [];
      const rows = await db
        .selectFrom(groups)
        .selectAll()
        .where("connection_id", "=", connectionId)
        .where(
          "id",
          "in",
          db
            .selectFrom(tables.scimGroupMembers)
            .select("group_id")
            .where("connection_id", "=", connectionId)
            .where("user_scim_id", "in", [...userScimIds]),
        )
        .orderBy("id")
        .execute();
      return withMembers(context, db, connectionId, rows as ScimGroupRow[]);
    },
  };
}

/** The connection's group whose `column` is `value` (the lowest id of several) with its members, read through `executor`, or null. */
async function findGroup(
  context: SqlContext,
  executor: AnyKysely,
  connectionId: string,
  column: string,
  value: string,
): Promise<ScimGroupRecord | null> {
  const row = await executor
    .selectFrom(context.tables.scimGroups)
    .selectAll()
    .where("connection_id", "=", connectionId)
    .where(column, "=", value)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const [group] = await withMembers(context, executor, connectionId, [row as ScimGroupRow]);
  return group ?? null;
}

/**
 * The groups' writes of `createSqlScimStore`: a group's row and its member rows change in one
 * transaction, the group's row first (`updateScimGroup`'s compare-and-set locks it).
 */
export function sqlScimGroupWrites(
  context: SqlContext,
): Pick<ScimStore, "createScimGroup" | "updateScimGroup" | "deleteScimGroup"> {
  const { db, tables } = context;
  const groups = tables.scimGroups;
  return {
    async createScimGroup(group) {
      const nameKey = scimNameKey(group.displayName);
      return createUntilTaken(
        context,
        groups,
        group.id,
        async () =>
          (await findGroup(context, db, group.connectionId, "display_name_key", nameKey))
            ? "display-name-taken"
            : null,
        (trx) => insertGroup(context, trx, group),
      );
    },

    async updateScimGroup(connectionId, id, version, patch) {
      try {
        return await transaction(context, async (trx) => {
          const columns = scimGroupPatchColumns(patch);
          const outcome = await compareAndSet(trx, groups, connectionId, id, version, columns);
          if (outcome !== "updated") return outcome;
          if (patch.memberIds !== undefined)
            await replaceMembers(context, trx, connectionId, id, patch.memberIds);
          return findGroup(context, trx, connectionId, "id", id);
        });
      } catch (error) {
        // Only the name's unique key can refuse the UPDATE; the transaction rolled back.
        if (isDuplicateKey(error)) return "display-name-taken";
        throw error;
      }
    },

    deleteScimGroup: (connectionId, id) =>
      transaction(context, async (trx) => {
        const { numDeletedRows } = await trx
          .deleteFrom(groups)
          .where("id", "=", id)
          .where("connection_id", "=", connectionId)
          .executeTakeFirst();
        if (Number(numDeletedRows) === 0) return false;
        await trx.deleteFrom(tables.scimGroupMembers).where("group_id", "=", id).execute();
        return true;
      }),
  };
}

/** A group's row and its member rows (ids once each). */
async function insertGroup(context: SqlContext, trx: AnyKysely, group: ScimGroupRecord): Promise<void> {
  await trx.insertInto(context.tables.scimGroups).values(scimGroupRow(group)).execute();
  await insertMembers(context, trx, group.connectionId, group.id, [...new Set(group.memberIds)]);
}

/** Rows of `<prefix>scim_group_members` for `memberIds` of the group, in order of id and in chunks. */
async function insertMembers(
  { tables }: SqlContext,
  trx: AnyKysely,
  connectionId: string,
  groupId: string,
  memberIds: string[],
): Promise<void> {
  for (const chunk of chunks([...memberIds].sort())) {
    const rows = chunk.map((userScimId) => ({
      connection_id: connectionId,
      group_id: groupId,
      user_scim_id: userScimId,
    }));
    await trx.insertInto(tables.scimGroupMembers).values(rows).execute();
  }
}

/** Makes the group's member rows those of `memberIds`: deletes the dropped, adds the new. */
async function replaceMembers(
  context: SqlContext,
  trx: AnyKysely,
  connectionId: string,
  groupId: string,
  memberIds: string[],
): Promise<void> {
  const table = context.tables.scimGroupMembers;
  const wanted = new Set(memberIds);
  const current = (
    await trx.selectFrom(table).select("user_scim_id").where("group_id", "=", groupId).execute()
  ).map((row) => row.user_scim_id as string);
  const have = new Set(current);
  for (const dropped of chunks(current.filter((memberId) => !wanted.has(memberId)))) {
    await trx
      .deleteFrom(table)
      .where("group_id", "=", groupId)
      .where("user_scim_id", "in", dropped)
      .execute();
  }
  await insertMembers(
    context,
    trx,
    connectionId,
    groupId,
    [...wanted].filter((memberId) => !have.has(memberId)),
  );
}

/**
 * Takes the (deleted) user out of each of its groups, moving their versions on: the groups' rows
 * are locked in order of id before their member rows change (as `updateScimGroup` does: first the
 * group, then its members), so deletes and group updates never wait on each other in a circle.
 * Reads again until no member row of the user is left (one added meanwhile goes too).
 */
export async function leaveGroups(
  { dialect, tables }: SqlContext,
  trx: AnyKysely,
  connectionId: string,
  userScimId: string,
): Promise<void> {
  const ofUser = () =>
    trx
      .selectFrom(tables.scimGroupMembers)
      .select("group_id")
      .where("connection_id", "=", connectionId)
      .where("user_scim_id", "=", userScimId)
      .orderBy("group_id");
  for (;;) {
    const groupIds = (await ofUser().execute()).map((row) => row.group_id as string);
    if (groupIds.length === 0) return;
    for (const chunk of chunks(groupIds)) {
      if (dialect !== "sqlite") {
        await trx
          .selectFrom(tables.scimGroups)
          .select("id")
          .where("connection_id", "=", connectionId)
          .where("id", "in", chunk)
          .orderBy("id")
          .forUpdate()
          .execute();
      }
      await trx
        .updateTable(tables.scimGroups)
        .set((eb) => ({ version: eb("version", "+", 1) }))
        .where("connection_id", "=", connectionId)
        .where("id", "in", chunk)
        .execute();
      await trx
        .deleteFrom(tables.scimGroupMembers)
        .where("connection_id", "=", connectionId)
        .where("user_scim_id", "=", userScimId)
        .where("group_id", "in", chunk)
        .execute();
    }
  }
}

/** The groups of `rows` with their members' ids, ascending (byte order: the key columns' collation). */
async function withMembers(
  { tables }: SqlContext,
  executor: AnyKysely,
  connectionId: string,
  rows: ScimGroupRow[],
): Promise<ScimGroupRecord[]> {
  const members = new Map<string, string[]>(rows.map((row) => [row.id, []]));
  for (const chunk of chunks(rows.map((row) => row.id))) {
    const found = await executor
      .selectFrom(tables.scimGroupMembers)
      .select(["group_id", "user_scim_id"])
      .where("connection_id", "=", connectionId)
      .where("group_id", "in", chunk)
      .orderBy("group_id")
      .orderBy("user_scim_id")
      .execute();
    for (const row of found) members.get(row.group_id as string)?.push(row.user_scim_id as string);
  }
  return rows.map((row) => scimGroupOf(row, members.get(row.id) ?? []));
}
