import type { JointStores } from "@portcullis/core";
import { sql } from "kysely";
import { batchedRead } from "./access-token-allowlist.js";
import { compiledQuery } from "./compiled-query.js";
import { type AnyKysely, type SqlContext, toNumber, upsertQuery } from "./context.js";
import { newSessionRow } from "./session-store.js";
import { fromUserRow, type UserRow } from "./user-store.js";

type EntryWithUserRow = UserRow & { allowed_user_id: string; allowed_session_id: string };

/** The entry, its user and the user's membership (null columns: none) with its custom role's permissions. */
type EntryWithMembershipRow = EntryWithUserRow & {
  member_organization_id: string | null;
  member_role: string | null;
  member_joined_at: number | string | null;
  role_permissions: string | null;
};

/**
 * `JointStores` over the users, sessions and allowlist tables of one `createSqlStores` call.
 * `findAllowedAccessTokenWithUser` reads the entry and its user in one statement (a left join on
 * the users' primary key), batched per turn of the event loop on PostgreSQL as the allowlist's
 * own read is. `findAllowedAccessTokenWithMembership` also left-joins the user's membership in the
 * organization and its custom role (both by primary key): the same one statement, not batched.
 * `allowAccessTokenWithSession` writes the entry and the new session in one
 * statement, only on PostgreSQL (a data-modifying WITH; SQLite and MySQL have none, so there the
 * method is absent and the core makes the two calls).
 */
export function createSqlJointStores(context: SqlContext): JointStores {
  const { tables } = context;
  const table = tables.accessTokens;
  const findEntryWithUser = compiledQuery<[string, number], EntryWithUserRow>(2, (on, jti, now) =>
    on
      .selectFrom(`${table} as a`)
      .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
      .selectAll("u")
      .select(["a.user_id as allowed_user_id", "a.session_id as allowed_session_id"])
      .where("a.jti", "=", jti)
      .where("a.expires_at", ">", now),
  );
  const findEntriesWithUser = () =>
    compiledQuery<[string[], number], EntryWithUserRow & { allowed_jti: string }>(2, (on, jtis, now) =>
      on
        .selectFrom(`${table} as a`)
        .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
        .selectAll("u")
        .select([
          "a.jti as allowed_jti",
          "a.user_id as allowed_user_id",
          "a.session_id as allowed_session_id",
        ])
        .where("a.jti", "=", sql<string>`any(${jtis})`)
        .where("a.expires_at", ">", now),
    );
  const readEntryWithUser = batchedRead(
    context,
    findEntryWithUser,
    findEntriesWithUser,
    (row) => row.allowed_jti,
  );
  return {
    async findAllowedAccessTokenWithUser(jti) {
      const row = await readEntryWithUser(jti);
      if (!row) return null;
      const { allowed_user_id, allowed_session_id, ...user } = row;
      return {
        entry: { userId: allowed_user_id, sessionId: allowed_session_id },
        user: user.id == null ? null : fromUserRow(user),
      };
    },
    findAllowedAccessTokenWithMembership: membershipRead(context),
    ...(context.dialect === "postgres" ? { allowAccessTokenWithSession: jointWrite(context) } : {}),
  };
}

/**
 * `allowAccessTokenWithSession` on PostgreSQL: the entry's UPSERT as a data-modifying WITH of the
 * session's, one statement, so both rows are written or neither.
 */
function jointWrite({
  db,
  dialect,
  tables,
  clock,
}: SqlContext): NonNullable<JointStores["allowAccessTokenWithSession"]> {
  // Compiled once per set of the session's columns (the optional ones are written only when
  // given). Arguments: the entry's jti, user, session and expiry, then the session's columns.
  const compiled = new Map<string, (on: AnyKysely, ...args: unknown[]) => Promise<unknown[]>>();
  const statementFor = (columns: string[]) => {
    const shape = columns.join(",");
    let write = compiled.get(shape);
    if (!write) {
      write = compiledQuery<unknown[], never>(
        4 + columns.length,
        (on, jti, userId, sessionId, expiresAt, ...values) => {
          const allowed = { jti, user_id: userId, session_id: sessionId, expires_at: expiresAt };
          const withAllowed = on.with("allowed", (within) =>
            upsertQuery({ db: within, dialect }, tables.accessTokens, "jti", allowed),
          );
          const created = Object.fromEntries(columns.map((column, i) => [column, values[i]]));
          return upsertQuery({ db: withAllowed, dialect }, tables.sessions, "id", created);
        },
      );
      compiled.set(shape, write);
    }
    return write;
  };
  return async (jti, entry, ttlMs, session, sessionTtlMs) => {
    const now = clock.now();
    const created = newSessionRow(session, now + sessionTtlMs);
    const columns = Object.keys(created) as (keyof typeof created)[];
    await statementFor(columns)(
      db,
      jti,
      entry.userId,
      entry.sessionId,
      now + ttlMs,
      ...columns.map((c) => created[c]),
    );
  };
}

/**
 * `findAllowedAccessTokenWithMembership`: the entry, its user, the user's membership in the
 * organization and the membership's custom role, in one statement of left joins on primary keys.
 */
function membershipRead({
  db,
  tables,
  clock,
}: SqlContext): NonNullable<JointStores["findAllowedAccessTokenWithMembership"]> {
  const read = compiledQuery<[string, string, number], EntryWithMembershipRow>(
    3,
    (on, jti, organizationId, now) =>
      on
        .selectFrom(`${tables.accessTokens} as a`)
        .leftJoin(`${tables.users} as u`, "u.id", "a.user_id")
        .leftJoin(`${tables.memberships} as m`, (join) =>
          join.on("m.organization_id", "=", organizationId).onRef("m.user_id", "=", "a.user_id"),
        )
        .leftJoin(`${tables.organizationRoles} as r`, (join) =>
          join.onRef("r.organization_id", "=", "m.organization_id").onRef("r.name", "=", "m.role"),
        )
        .selectAll("u")
        .select([
          "a.user_id as allowed_user_id",
          "a.session_id as allowed_session_id",
          "m.organization_id as member_organization_id",
          "m.role as member_role",
          "m.joined_at as member_joined_at",
          "r.permissions as role_permissions",
        ])
        .where("a.jti", "=", jti)
        .where("a.expires_at", ">", now),
  );
  return async (jti, organizationId) => {
    const [row] = await read(db, jti, organizationId, clock.now());
    if (!row) return null;
    const { allowed_user_id, allowed_session_id, ...rest } = row;
    const { member_organization_id, member_role, member_joined_at, role_permissions, ...user } = rest;
    const membership =
      member_organization_id == null || member_role == null || member_joined_at == null
        ? null
        : {
            membership: {
              organizationId: member_organization_id,
              userId: allowed_user_id,
              role: member_role,
              joinedAt: toNumber(member_joined_at),
            },
            rolePermissions: role_permissions == null ? null : (JSON.parse(role_permissions) as string[]),
          };
    return {
      entry: { userId: allowed_user_id, sessionId: allowed_session_id },
      user: user.id == null ? null : fromUserRow(user),
      membership,
    };
  };
}
