import type { MembershipRecord, OrganizationStore } from "@portcullis/core";
import { type AnyKysely, type SqlContext, toNumber } from "./context.js";
import {
  fromMembershipRow,
  fromOrganizationRow,
  type MembershipRow,
  memberCursor,
  membershipRow,
  type OrganizationRow,
  OWNER,
  organizationTransactions,
  readMemberCursor,
} from "./organization-rows.js";

/** Reading memberships, adding members, changing roles, removing members and removing a user everywhere. */
export function membershipMethods(
  context: SqlContext,
): Pick<
  OrganizationStore,
  | "findMembership"
  | "listMembershipsOfUser"
  | "listMembers"
  | "addMember"
  | "changeMemberRole"
  | "removeMember"
  | "removeUser"
> {
  return { ...membershipReads(context), ...membershipChanges(context) };
}

/** Adding a member, changing a member's role, removing a member, removing a user everywhere. */
function membershipChanges(
  context: SqlContext,
): Pick<OrganizationStore, "addMember" | "changeMemberRole" | "removeMember" | "removeUser"> {
  const transactions = organizationTransactions(context);
  const memberships = context.tables.memberships;
  /**
   * In a transaction holding the organization's lock: the member's row, and whether the member
   * is the organization's only owner.
   */
  const readMember = async (trx: AnyKysely, organizationId: string, userId: string) => {
    await transactions.lock(trx, [organizationId]);
    const row = (await trx
      .selectFrom(memberships)
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("user_id", "=", userId)
      .executeTakeFirst()) as MembershipRow | undefined;
    if (!row || row.role !== OWNER) return { row, onlyOwner: false };
    const owners = await trx
      .selectFrom(memberships)
      .select("user_id")
      .where("organization_id", "=", organizationId)
      .where("role", "=", OWNER)
      .limit(2)
      .execute();
    return { row, onlyOwner: owners.length < 2 };
  };
  const member = (trx: AnyKysely, organizationId: string, userId: string) =>
    trx.updateTable(memberships).where("organization_id", "=", organizationId).where("user_id", "=", userId);
  return {
    addMember: (membership) => transactions.run((trx) => addMemberNow(context, trx, membership)),

    changeMemberRole: (organizationId, userId, role) =>
      transactions.run(async (trx) => {
        const { row, onlyOwner } = await readMember(trx, organizationId, userId);
        if (!row) return "not-found";
        if (onlyOwner && role !== OWNER) return "last-owner";
        await member(trx, organizationId, userId).set({ role }).execute();
        return "changed";
      }),

    removeMember: (organizationId, userId) =>
      transactions.run(async (trx) => {
        const { row, onlyOwner } = await readMember(trx, organizationId, userId);
        if (!row) return "not-found";
        if (onlyOwner) return "last-owner";
        await trx
          .deleteFrom(memberships)
          .where("organization_id", "=", organizationId)
          .where("user_id", "=", userId)
          .execute();
        return "removed";
      }),

    removeUser: (userId) => transactions.run((trx) => removeUserNow(context, trx, userId)),
  };
}

/** Reading a membership, a user's memberships, an organization's members. */
function membershipReads({
  db,
  tables,
}: SqlContext): Pick<OrganizationStore, "findMembership" | "listMembershipsOfUser" | "listMembers"> {
  const memberships = tables.memberships;
  return {
    async findMembership(organizationId, userId) {
      const row = await db
        .selectFrom(`${memberships} as m`)
        .leftJoin(`${tables.organizationRoles} as r`, (join) =>
          join.onRef("r.organization_id", "=", "m.organization_id").onRef("r.name", "=", "m.role"),
        )
        .selectAll("m")
        .select("r.permissions")
        .where("m.organization_id", "=", organizationId)
        .where("m.user_id", "=", userId)
        .executeTakeFirst();
      if (!row) return null;
      const permissions = row.permissions as string | null;
      return {
        membership: fromMembershipRow(row as unknown as MembershipRow),
        rolePermissions: permissions == null ? null : (JSON.parse(permissions) as string[]),
      };
    },

    async listMembershipsOfUser(userId) {
      const rows = await db
        .selectFrom(`${memberships} as m`)
        .innerJoin(`${tables.organizations} as o`, "o.id", "m.organization_id")
        .selectAll("m")
        .select(["o.id", "o.name", "o.search_name", "o.slug", "o.created_at"])
        .where("m.user_id", "=", userId)
        .orderBy("m.joined_at")
        .orderBy("m.organization_id")
        .execute();
      return rows.map((row) => ({
        organization: fromOrganizationRow(row as OrganizationRow),
        membership: fromMembershipRow(row as unknown as MembershipRow),
      }));
    },

    async listMembers(organizationId, { cursor, limit }) {
      let select = db
        .selectFrom(memberships)
        .selectAll()
        .where("organization_id", "=", organizationId)
        .orderBy("joined_at")
        .orderBy("user_id")
        .limit(limit + 1);
      if (cursor !== undefined) {
        const after = readMemberCursor(cursor);
        if (!after) return { items: [], nextCursor: null };
        select = select.where((eb) =>
          eb.or([
            eb("joined_at", ">", after.joinedAt),
            eb.and([eb("joined_at", "=", after.joinedAt), eb("user_id", ">", after.userId)]),
          ]),
        );
      }
      const rows = (await select.execute()) as MembershipRow[];
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map(fromMembershipRow),
        nextCursor: rows.length > limit && last ? memberCursor(last) : null,
      };
    },
  };
}

/**
 * `addMember` in the transaction `trx`: the organization is locked (none: `not-found`, nothing
 * stored) and, under the lock, the user's membership looked for before the new one is inserted,
 * so of concurrent additions of one user to one organization only the first finds none.
 */
async function addMemberNow(
  context: SqlContext,
  trx: AnyKysely,
  membership: MembershipRecord,
): Promise<"added" | "exists" | "not-found"> {
  const { organizationId, userId } = membership;
  const memberships = context.tables.memberships;
  const transactions = organizationTransactions(context);
  if ((await transactions.lock(trx, [organizationId])).length === 0) return "not-found";
  const member = await trx
    .selectFrom(memberships)
    .select("user_id")
    .where("organization_id", "=", organizationId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (member) return "exists";
  await trx.insertInto(memberships).values(membershipRow(membership)).execute();
  return "added";
}

/**
 * `removeUser` in the transaction `trx`: the user's organizations are locked (in order of id),
 * then counted (members, owners) in one statement, and either nothing changes (`blockedBy`) or
 * the user's memberships go, with each organization the user was alone in.
 */
async function removeUserNow(
  context: SqlContext,
  trx: AnyKysely,
  userId: string,
): Promise<{ blockedBy: string[]; deletedOrganizations: string[] }> {
  const { tables } = context;
  const memberships = tables.memberships;
  const ofUser = () =>
    trx
      .selectFrom(memberships)
      .select(["organization_id", "role"])
      .where("user_id", "=", userId)
      .orderBy("joined_at")
      .orderBy("organization_id")
      .execute() as Promise<Pick<MembershipRow, "organization_id" | "role">[]>;
  const transactions = organizationTransactions(context);
  const locked = new Set(
    await transactions.lock(
      trx,
      (await ofUser()).map((row) => row.organization_id),
    ),
  );
  // Read again under the locks: a role changed meanwhile counts as it is now, and an
  // organization joined meanwhile is locked too.
  const mine = await ofUser();
  if (mine.length === 0) return { blockedBy: [], deletedOrganizations: [] };
  const ids = mine.map((row) => row.organization_id);
  const joined = ids.filter((id) => !locked.has(id));
  if (joined.length > 0) await transactions.lock(trx, joined);
  const counts = await trx
    .selectFrom(memberships)
    .select((eb) => [
      "organization_id",
      eb.fn.countAll().as("members"),
      eb.fn.sum(eb.case().when("role", "=", OWNER).then(1).else(0).end()).as("owners"),
    ])
    .where("organization_id", "in", ids)
    .groupBy("organization_id")
    .execute();
  const countOf = new Map(
    counts.map((row) => [
      row.organization_id as string,
      { members: toNumber(row.members), owners: toNumber(row.owners) },
    ]),
  );
  const blockedBy: string[] = [];
  const alone: string[] = [];
  for (const { organization_id: id, role } of mine) {
    const { members, owners } = countOf.get(id) ?? { members: 1, owners: 0 };
    if (members <= 1) alone.push(id);
    else if (role === OWNER && owners <= 1) blockedBy.push(id);
  }
  if (blockedBy.length > 0) return { blockedBy, deletedOrganizations: [] };
  await trx
    .deleteFrom(memberships)
    .where("user_id", "=", userId)
    .where("organization_id", "in", ids)
    .execute();
  if (alone.length > 0) {
    for (const table of [tables.organizationRoles, tables.invitations, tables.apiKeys]) {
      await trx.deleteFrom(table).where("organization_id", "in", alone).execute();
    }
    await trx.deleteFrom(tables.organizations).where("id", "in", alone).execute();
  }
  return { blockedBy: [], deletedOrganizations: alone };
}
