import { createHash } from "node:crypto";
import type { InvitationRecord, MembershipRecord, OrganizationRecord, RoleRecord } from "@portcullis/core";
import { sql } from "kysely";
import { type AnyKysely, inTransaction, type SqlContext, toNumber } from "./context.js";

/** A row of `<prefix>organizations` (migration 0013); `search_name` is the name in lower case. */
export interface OrganizationRow {
  id: string;
  name: string;
  search_name: string;
  slug: string;
  created_at: number | string;
}

/** A row of `<prefix>memberships`. */
export interface MembershipRow {
  organization_id: string;
  user_id: string;
  role: string;
  joined_at: number | string;
}

/** A row of `<prefix>organization_roles`; `permissions` is a JSON array. */
export interface RoleRow {
  organization_id: string;
  name: string;
  permissions: string;
  created_at: number | string;
}

/** A row of `<prefix>invitations`. */
export interface InvitationRow {
  id: string;
  organization_id: string;
  email: string;
  role: string;
  token_hash: string;
  invited_by: string;
  created_at: number | string;
  expires_at: number | string;
}

/** The row of a new organization. */
export const organizationRow = (organization: OrganizationRecord): OrganizationRow => ({
  id: organization.id,
  name: organization.name,
  search_name: organization.name.toLowerCase(),
  slug: organization.slug,
  created_at: organization.createdAt,
});

/** The record of an organization row (times as numbers on every dialect). */
export const fromOrganizationRow = (row: OrganizationRow): OrganizationRecord => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  createdAt: toNumber(row.created_at),
});

/** The row of a membership. */
export const membershipRow = (membership: MembershipRecord): MembershipRow => ({
  organization_id: membership.organizationId,
  user_id: membership.userId,
  role: membership.role,
  joined_at: membership.joinedAt,
});

/** The record of a membership row. */
export const fromMembershipRow = (row: MembershipRow): MembershipRecord => ({
  organizationId: row.organization_id,
  userId: row.user_id,
  role: row.role,
  joinedAt: toNumber(row.joined_at),
});

/** The record of a custom role row (its permissions parsed, in the stored order). */
export const fromRoleRow = (row: RoleRow): RoleRecord => ({
  organizationId: row.organization_id,
  name: row.name,
  permissions: JSON.parse(row.permissions) as string[],
  createdAt: toNumber(row.created_at),
});

/** The row of a new invitation. */
export const invitationRow = (invitation: InvitationRecord): InvitationRow => ({
  id: invitation.id,
  organization_id: invitation.organizationId,
  email: invitation.email,
  role: invitation.role,
  token_hash: invitation.tokenHash,
  invited_by: invitation.invitedBy,
  created_at: invitation.createdAt,
  expires_at: invitation.expiresAt,
});

/** The record of an invitation row. */
export const fromInvitationRow = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  organizationId: row.organization_id,
  email: row.email,
  role: row.role,
  tokenHash: row.token_hash,
  invitedBy: row.invited_by,
  createdAt: toNumber(row.created_at),
  expiresAt: toNumber(row.expires_at),
});

/** The built-in role an organization always keeps at least one member in. */
export const OWNER = "owner";

/** How long MySQL's `GET_LOCK` waits for another creation by the same user, in seconds. */
const USER_LOCK_WAIT_SECONDS = 10;

/**
 * The transactions of the organization store. Every change that must be atomic within an
 * organization (its owners, a role in use, an invitation's acceptance, its replacement) runs in a
 * transaction that first locks the organization's row: on PostgreSQL and MySQL with
 * `SELECT … FOR UPDATE` at READ COMMITTED (the statements after the lock see every change
 * committed before it was granted, and MySQL takes no gap locks), on SQLite by the transaction
 * itself (`BEGIN IMMEDIATE` holds the file's write lock). Several organizations are locked in
 * order of id, so two transactions never wait for each other.
 */
export function organizationTransactions({ db, dialect, tables }: SqlContext) {
  const serializedBySqlite = dialect === "sqlite";
  const run = <T>(work: (trx: AnyKysely) => Promise<T>) =>
    inTransaction(db, work, { readCommitted: !serializedBySqlite });
  return {
    /** `work` in a transaction (deadlocks retried on MySQL). */
    run,
    /**
     * Locks the rows of the organizations `ids` (in order of id) and resolves to the ids that
     * exist; on SQLite, where the transaction holds the write lock, it only reads them.
     */
    async lock(trx: AnyKysely, ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const sorted = [...new Set(ids)].sort();
      const query = trx.selectFrom(tables.organizations).select("id").where("id", "in", sorted).orderBy("id");
      const rows = await (serializedBySqlite ? query : query.forUpdate()).execute();
      return rows.map((row) => row.id as string);
    },
    /**
     * `work` in a transaction that holds a lock on `userId` (its organization count) until it
     * ends: PostgreSQL's `pg_advisory_xact_lock`, MySQL's `GET_LOCK` on the same connection
     * (released after the commit), SQLite's write lock.
     */
    async runAsUser<T>(userId: string, work: (trx: AnyKysely) => Promise<T>): Promise<T> {
      const key = `${tables.memberships}:${userId}`;
      if (dialect === "postgres") {
        return inTransaction(
          db,
          async (trx) => {
            await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
            return work(trx);
          },
          { readCommitted: true },
        );
      }
      if (dialect !== "mysql" || db.isTransaction) return run(work);
      const name = `portcullis:${createHash("sha256").update(key).digest("base64url").slice(0, 40)}`;
      return db.connection().execute(async (connection) => {
        const { rows } = await sql<{
          locked: number | null;
        }>`select get_lock(${name}, ${USER_LOCK_WAIT_SECONDS}) as locked`.execute(connection);
        if (Number(rows[0]?.locked) !== 1)
          throw new Error("the user's organization lock was not granted in time");
        try {
          return await inTransaction(connection, work, { readCommitted: true });
        } finally {
          // A connection that fails here is gone, and MySQL releases its locks with it.
          await sql`select release_lock(${name})`.execute(connection).catch(() => {});
        }
      });
    },
  };
}

/** The transactions of one organization store (`organizationTransactions`). */
export type OrganizationTransactions = ReturnType<typeof organizationTransactions>;

/** `LIKE` patterns with `!` as the escape character: `%`, `_` and `!` match only themselves. */
export const startsWithPattern = (prefix: string) => `${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** A cursor of the member listing: where the last member of a page joined, and who it is. */
export const memberCursor = (row: MembershipRow) =>
  Buffer.from(JSON.stringify([toNumber(row.joined_at), row.user_id])).toString("base64url");

/** The position of `cursor`, or null when it is not one `memberCursor` made. */
export function readMemberCursor(cursor: string): { joinedAt: number; userId: string } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2) return null;
    const [joinedAt, userId] = value as unknown[];
    if (!Number.isSafeInteger(joinedAt) || typeof userId !== "string") return null;
    return { joinedAt: joinedAt as number, userId };
  } catch {
    return null;
  }
}
