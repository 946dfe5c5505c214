import type { CooldownStore, JointStores, SessionRecord } from "@portcullis/core";
import { sql } from "kysely";
import { batchedRead } from "./access-token-allowlist.js";
import { compiledQuery } from "./compiled-query.js";
import { type AnyKysely, type SqlContext, storedKey, toNumber, upsertQuery } from "./context.js";
import { hitCounted, hitUpsert, upserts } from "./cooldown-store.js";
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
 * method is absent and the core makes the two calls). There, given the store's `cooldowns`, the
 * joint names it (`JointStores.cooldowns`), and a sign-in's write also clears its throttle.
 */
export function createSqlJointStores(context: SqlContext, cooldowns?: CooldownStore): JointStores {
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
    ...(context.dialect === "postgres"
      ? {
          allowAccessTokenWithSession: jointWrite(context),
          allowAccessTokenWithSessionAndRecordSignIn: jointSignInWrite(context),
          // The sign-in's write clears the throttle in this store's tables, and its first statement
          // counts the attempt there: those of `cooldowns`.
          ...(cooldowns ? { cooldowns, hitAndFindUserByEmail: hitWithUser(context) } : {}),
        }
      : {}),
  };
}

/**
 * `hitAndFindUserByEmail` on PostgreSQL: the counter's UPSERT (the cooldown store's `hit`, relaxed
 * commit included) as a data-modifying WITH, and the user read by email left-joined to the one
 * row it returns: one statement, compiled once.
 */
function hitWithUser(context: SqlContext): NonNullable<JointStores["hitAndFindUserByEmail"]> {
  const { db, tables, clock } = context;
  const pieces = upserts(context);
  const statement = compiledQuery<[string, number, number, string], HitWithUserRow>(
    4,
    (on, id, now, expiresAt, email) =>
      on
        .with("hit", () => hitUpsert(context, pieces, on, id, 1, now, expiresAt))
        .selectFrom("hit")
        .leftJoin(`${tables.users} as u`, (join) => join.on("u.email", "=", email))
        .selectAll("u")
        .select(["hit.hits as hit_hits", "hit.expires_at as hit_expires_at"]),
  );
  return async (counterKey, windowMs, email) => {
    const now = clock.now();
    const [row] = await statement(db, storedKey(counterKey), now, now + windowMs, email);
    const counted = hitCounted(context, row && { hits: row.hit_hits, expires_at: row.hit_expires_at });
    const { hit_hits: _hits, hit_expires_at: _expires, ...user } = row as HitWithUserRow;
    return { ...counted, user: user.id === null ? null : fromUserRow(user as UserRow) };
  };
}

/** `hitWithUser`'s row: the counter as the hit left it, and the user's columns (all null: none). */
type HitWithUserRow = (UserRow | { [K in keyof UserRow]: null }) & {
  hit_hits: number | string;
  hit_expires_at: number | string;
};

/**
 * `allowAccessTokenWithSession` on PostgreSQL: the entry's UPSERT as a data-modifying WITH of the
 * session's, one statement, so both rows are written or neither.
 */
function jointWrite(context: SqlContext): NonNullable<JointStores["allowAccessTokenWithSession"]> {
  const statementFor = sessionStatements(context, false);
  return async (jti, entry, ttlMs, session, sessionTtlMs) => {
    const { write, values } = statementFor(session, sessionTtlMs);
    await write(context.db, jti, entry.userId, entry.sessionId, context.clock.now() + ttlMs, ...values);
  };
}

/**
 * `allowAccessTokenWithSessionAndRecordSignIn` on PostgreSQL: `jointWrite`'s statement with two
 * more parts, the user's row locked and read (`select … for update`, which waits for a writer of
 * the row and reads its latest version) and `last_sign_in_at` set from that read as
 * `recordSignInIfUnchanged` sets it; it returns the row as read. A lock or a password set is an
 * UPDATE of that row, so it lands either before this statement (which then reads it) or after
 * its commit (and its session purge then finds this session). Two more parts delete `clear`'s
 * counters and cooldowns (none: two empty arrays), the sign-in's throttle cleared in the same
 * commit; they are the rows `cooldowns.clearKeys` deletes (ids through `storedKey`).
 */
function jointSignInWrite(
  context: SqlContext,
): NonNullable<JointStores["allowAccessTokenWithSessionAndRecordSignIn"]> {
  const statementFor = sessionStatements(context, true);
  return async (jti, entry, ttlMs, session, sessionTtlMs, passwordHash, clear) => {
    const { write, values } = statementFor(session, sessionTtlMs);
    const rows = (await write(
      context.db,
      jti,
      entry.userId,
      entry.sessionId,
      context.clock.now() + ttlMs,
      session.userId,
      session.createdAt,
      passwordHash ?? null,
      clear ? clear.counterKeys.map(storedKey) : [],
      clear ? clear.cooldownKeys.map(storedKey) : [],
      ...values,
    )) as UserRow[];
    const [row] = rows;
    return row ? fromUserRow(row) : null;
  };
}

/**
 * The joint session statements, compiled once per set of the session's columns (the optional
 * ones are written only when given). Arguments: the entry's jti, user, session and expiry, with
 * `signIn` the user's id, the sign-in's time, the checked hash (or null) and the stored ids of the
 * counters and of the cooldowns to delete (arrays, maybe empty), then the session's columns.
 */
function sessionStatements({ dialect, tables, clock }: SqlContext, signIn: boolean) {
  const compiled = new Map<string, (on: AnyKysely, ...args: unknown[]) => Promise<unknown[]>>();
  const fixed = signIn ? 9 : 4;
  const build = (columns: string[]) =>
    compiledQuery<unknown[], never>(fixed + columns.length, (on, ...slots) => {
      const [jti, userId, sessionId, expiresAt] = slots;
      const values = slots.slice(fixed);
      const allowed = { jti, user_id: userId, session_id: sessionId, expires_at: expiresAt };
      const created = Object.fromEntries(columns.map((column, i) => [column, values[i]]));
      if (!signIn) {
        const withAllowed = on.with("allowed", (within) =>
          upsertQuery({ db: within, dialect }, tables.accessTokens, "jti", allowed),
        );
        return upsertQuery({ db: withAllowed, dialect }, tables.sessions, "id", created);
      }
      const [, , , , signInUser, at, hash, counterIds, cooldownIds] = slots;
      const users = tables.users;
      return on
        .with("before", (within) =>
          within.selectFrom(users).selectAll().where("id", "=", signInUser).forUpdate(),
        )
        .with("recorded", (within) =>
          within
            .updateTable(`${users} as u`)
            .from("before")
            .set({
              last_sign_in_at: sql`case when before.locked_at is null and (${hash}::text is null or before.password_hash = ${hash}::text) then ${at}::bigint else u.last_sign_in_at end`,
            })
            .whereRef("u.id", "=", "before.id"),
        )
        .with("allowed", (within) =>
          upsertQuery({ db: within, dialect }, tables.accessTokens, "jti", allowed),
        )
        .with("created", (within) => upsertQuery({ db: within, dialect }, tables.sessions, "id", created))
        .with("cleared_counters", (within) =>
          within.deleteFrom(tables.counters).where("id", "=", sql<string>`any(${counterIds})`),
        )
        .with("cleared_cooldowns", (within) =>
          within.deleteFrom(tables.cooldowns).where("id", "=", sql<string>`any(${cooldownIds})`),
        )
        .selectFrom("before")
        .selectAll();
    });
  return (session: SessionRecord, sessionTtlMs: number) => {
    const row = newSessionRow(session, clock.now() + sessionTtlMs);
    const columns = Object.keys(row) as (keyof typeof row)[];
    const shape = columns.join(",");
    let write = compiled.get(shape);
    if (!write) {
      write = build(columns);
      compiled.set(shape, write);
    }
    return { write, values: columns.map((column) => row[column]) };
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
