import type { InvitationAcceptance, OrganizationStore } from "@portcullis/core";
import { type AnyKysely, insertUnlessTaken, type SqlContext } from "./context.js";
import {
  fromInvitationRow,
  fromMembershipRow,
  fromRoleRow,
  type InvitationRow,
  invitationRow,
  type MembershipRow,
  organizationTransactions,
  type RoleRow,
} from "./organization-rows.js";

/** An organization's custom roles: listed, created, updated, and deleted while unused. */
export function roleMethods(
  context: SqlContext,
): Pick<OrganizationStore, "listRoles" | "createRole" | "updateRole" | "deleteRole"> {
  const { db, dialect, tables } = context;
  const transactions = organizationTransactions(context);
  const roles = tables.organizationRoles;
  const role = (executor: AnyKysely, organizationId: string, name: string) =>
    executor
      .selectFrom(roles)
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("name", "=", name);
  return {
    async listRoles(organizationId) {
      const rows = await db
        .selectFrom(roles)
        .selectAll()
        .where("organization_id", "=", organizationId)
        .orderBy("created_at")
        .orderBy("name")
        .execute();
      return rows.map((row) => fromRoleRow(row as RoleRow));
    },

    async createRole(record) {
      const row: RoleRow = {
        organization_id: record.organizationId,
        name: record.name,
        permissions: JSON.stringify(record.permissions),
        created_at: record.createdAt,
      };
      return (await insertUnlessTaken({ db, dialect }, roles, row)) ? "created" : "exists";
    },

    async updateRole(organizationId, name, permissions) {
      await db
        .updateTable(roles)
        .set({ permissions: JSON.stringify(permissions) })
        .where("organization_id", "=", organizationId)
        .where("name", "=", name)
        .execute();
      const row = await role(db, organizationId, name).executeTakeFirst();
      return row ? fromRoleRow(row as RoleRow) : null;
    },

    deleteRole: (organizationId, name) =>
      transactions.run(async (trx) => {
        await transactions.lock(trx, [organizationId]);
        if (!(await role(trx, organizationId, name).executeTakeFirst())) return "not-found";
        if (await roleInUse(context, trx, organizationId, name)) return "in-use";
        // What is left granting it has expired on the store's clock: it goes with the role.
        await trx
          .deleteFrom(tables.invitations)
          .where("organization_id", "=", organizationId)
          .where("role", "=", name)
          .execute();
        await trx
          .deleteFrom(roles)
          .where("organization_id", "=", organizationId)
          .where("name", "=", name)
          .execute();
        return "deleted";
      }),
  };
}

/** Whether a member of the organization holds the role or a pending invitation grants it. */
async function roleInUse(
  { tables, clock }: SqlContext,
  trx: AnyKysely,
  organizationId: string,
  name: string,
): Promise<boolean> {
  for (const [table, pending] of [
    [tables.memberships, false],
    [tables.invitations, true],
  ] as const) {
    let holder = trx
      .selectFrom(table)
      .select("organization_id")
      .where("organization_id", "=", organizationId)
      .where("role", "=", name);
    if (pending) holder = holder.where("expires_at", ">", clock.now());
    if (await holder.limit(1).executeTakeFirst()) return true;
  }
  return false;
}

/** Invitations: created (replacing the older one), listed, revoked, declined and accepted. */
export function invitationMethods(
  context: SqlContext,
): Pick<
  OrganizationStore,
  | "createInvitation"
  | "findInvitationByTokenHash"
  | "listInvitations"
  | "listInvitationsForEmail"
  | "revokeInvitation"
  | "declineInvitation"
  | "acceptInvitation"
> {
  return { ...invitationReads(context), ...invitationChanges(context) };
}

/** Reading an invitation by its token's hash, an organization's and an address's invitations. */
function invitationReads({
  db,
  tables,
}: SqlContext): Pick<
  OrganizationStore,
  "findInvitationByTokenHash" | "listInvitations" | "listInvitationsForEmail"
> {
  const invitations = tables.invitations;
  const unexpired = (column: "organization_id" | "email", value: string, now: number) =>
    db
      .selectFrom(invitations)
      .selectAll()
      .where(column, "=", value)
      .where("expires_at", ">", now)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute() as Promise<InvitationRow[]>;
  return {
    async findInvitationByTokenHash(tokenHash) {
      const row = await db
        .selectFrom(invitations)
        .selectAll()
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
      return row ? fromInvitationRow(row as InvitationRow) : null;
    },

    listInvitations: async (organizationId, now) =>
      (await unexpired("organization_id", organizationId, now)).map(fromInvitationRow),

    listInvitationsForEmail: async (email, now) =>
      (await unexpired("email", email, now)).map(fromInvitationRow),
  };
}

/** Creating (replacing the older one), revoking, declining and accepting invitations. */
function invitationChanges(
  context: SqlContext,
): Pick<
  OrganizationStore,
  "createInvitation" | "revokeInvitation" | "declineInvitation" | "acceptInvitation"
> {
  const { db, tables } = context;
  const transactions = organizationTransactions(context);
  const invitations = tables.invitations;
  const deleted = (result: { numDeletedRows: bigint }) => Number(result.numDeletedRows) > 0;
  return {
    createInvitation: (invitation) =>
      transactions.run(async (trx) => {
        await transactions.lock(trx, [invitation.organizationId]);
        await trx
          .deleteFrom(invitations)
          .where("organization_id", "=", invitation.organizationId)
          .where("email", "=", invitation.email)
          .execute();
        await trx.insertInto(invitations).values(invitationRow(invitation)).execute();
      }),

    async revokeInvitation(organizationId, invitationId) {
      return deleted(
        await db
          .deleteFrom(invitations)
          .where("id", "=", invitationId)
          .where("organization_id", "=", organizationId)
          .executeTakeFirst(),
      );
    },

    async declineInvitation(tokenHash) {
      return deleted(await db.deleteFrom(invitations).where("token_hash", "=", tokenHash).executeTakeFirst());
    },

    acceptInvitation: (tokenHash, userId, now) =>
      transactions.run((trx) => acceptNow(context, trx, { tokenHash, userId, now })),
  };
}

/**
 * `acceptInvitation` in the transaction `trx`: the invitation is read, its organization locked,
 * and, under the lock, the invitation read again (of concurrent acceptances only the first still
 * finds it) and the user's membership looked for, before the invitation becomes the membership.
 */
async function acceptNow(
  context: SqlContext,
  trx: AnyKysely,
  { tokenHash, userId, now }: { tokenHash: string; userId: string; now: number },
): Promise<InvitationAcceptance> {
  const { tables } = context;
  const invitations = tables.invitations;
  const found = (await trx
    .selectFrom(invitations)
    .selectAll()
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst()) as InvitationRow | undefined;
  if (!found || Number(found.expires_at) <= now) return { status: "invalid" };
  const organizationId = found.organization_id;
  const transactions = organizationTransactions(context);
  if ((await transactions.lock(trx, [organizationId])).length === 0) return { status: "invalid" };
  const still = await trx.selectFrom(invitations).select("id").where("id", "=", found.id).executeTakeFirst();
  if (!still) return { status: "invalid" };
  const member = await trx
    .selectFrom(tables.memberships)
    .select("user_id")
    .where("organization_id", "=", organizationId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (member) return { status: "already-member" };
  await trx.deleteFrom(invitations).where("id", "=", found.id).execute();
  const row: MembershipRow = {
    organization_id: organizationId,
    user_id: userId,
    role: found.role,
    joined_at: now,
  };
  await trx.insertInto(tables.memberships).values(row).execute();
  return { status: "accepted", membership: fromMembershipRow(row), invitation: fromInvitationRow(found) };
}
