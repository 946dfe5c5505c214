import type {
  EmailChangeResult,
  TwoFactorSettings,
  UserPatch,
  UserRecord,
  UserStore,
} from "@portcullis/core";
import type { Generated, Kysely, Selectable, Updateable } from "kysely";

/**
 * The host's own table, as its Kysely `Database` type describes it: an integer id it assigns
 * itself, its own column names, and five columns added for Portcullis (`auth_id`,
 * `auth_identity_providers`, `auth_two_factor`, `auth_last_sign_in_at`, `auth_admin`). See
 * docs/existing-users-table.md.
 */
export interface MembersTable {
  member_id: Generated<number>;
  email_address: string;
  full_name: string | null;
  email_confirmed: number;
  password_digest: string | null;
  joined_at_ms: number | string;
  /** The id Portcullis knows the member by (sessions and tokens point to it). */
  auth_id: string;
  /** JSON array, e.g. `["github"]`. */
  auth_identity_providers: string;
  /** JSON of the `twoFactor` settings. */
  auth_two_factor: string;
  /** Milliseconds of the last sign-in; null until the first (no login alert for that one). */
  auth_last_sign_in_at: number | string | null;
  /**
   * JSON of the back office's state (`lockedAt`, `lockReason`, `lockedBy`,
   * `passwordChangeRequired`); `{}` when none is set.
   */
  auth_admin: string;
}

export interface HostDatabase {
  members: MembersTable;
}

const NO_TWO_FACTOR: TwoFactorSettings = {
  methods: [],
  preferredMethod: null,
  totpSecretEncrypted: null,
  recoveryCodeHashes: [],
};

function toUser(row: Selectable<MembersTable>): UserRecord {
  return {
    id: row.auth_id,
    email: row.email_address,
    emailVerified: Number(row.email_confirmed) === 1,
    name: row.full_name,
    passwordHash: row.password_digest,
    identityProviders: JSON.parse(row.auth_identity_providers) as string[],
    twoFactor: { ...NO_TWO_FACTOR, ...(JSON.parse(row.auth_two_factor) as Partial<TwoFactorSettings>) },
    createdAt: Number(row.joined_at_ms),
    ...(row.auth_last_sign_in_at != null && { lastSignInAt: Number(row.auth_last_sign_in_at) }),
    ...adminState(JSON.parse(row.auth_admin) as AdminState),
  };
}

/** The back office's fields of a user, as `auth_admin` keeps them. */
type AdminState = Pick<UserRecord, "lockedAt" | "lockReason" | "lockedBy" | "passwordChangeRequired">;

/** The back office's fields as a user record has them: a lock only with its time, the flag only when true. */
function adminState(state: AdminState): AdminState {
  return {
    ...(state.lockedAt != null && {
      lockedAt: state.lockedAt,
      lockReason: state.lockReason ?? null,
      lockedBy: state.lockedBy ?? null,
    }),
    ...(state.passwordChangeRequired === true && { passwordChangeRequired: true }),
  };
}

function toColumns(patch: UserPatch, current: UserRecord): Updateable<MembersTable> {
  const admin = ["lockedAt", "lockReason", "lockedBy", "passwordChangeRequired"] as const;
  const adminChanged = admin.some((field) => patch[field] !== undefined);
  return {
    ...(adminChanged && { auth_admin: JSON.stringify(adminState({ ...current, ...patch })) }),
    ...(patch.emailVerified !== undefined && { email_confirmed: patch.emailVerified ? 1 : 0 }),
    ...(patch.name !== undefined && { full_name: patch.name }),
    ...(patch.passwordHash !== undefined && { password_digest: patch.passwordHash }),
    ...(patch.identityProviders !== undefined && {
      auth_identity_providers: JSON.stringify(patch.identityProviders),
    }),
    ...(patch.twoFactor !== undefined && { auth_two_factor: JSON.stringify(patch.twoFactor) }),
    ...(patch.lastSignInAt !== undefined && { auth_last_sign_in_at: patch.lastSignInAt }),
  };
}

/** A UserStore on the host's `members` table (SQLite or PostgreSQL; on MySQL see the doc). */
export function createMembersUserStore(db: Kysely<HostDatabase>): UserStore {
  const findBy = async (column: "auth_id" | "email_address", value: string) => {
    const row = await db.selectFrom("members").selectAll().where(column, "=", value).executeTakeFirst();
    return row ? toUser(row) : null;
  };
  return {
    findById: (id) => findBy("auth_id", id),
    findByEmail: (email) => findBy("email_address", email),
    async create(user) {
      // The unique indexes on email_address and auth_id make this atomic: a clash inserts nothing.
      const row = await db
        .insertInto("members")
        .values({
          auth_id: user.id,
          email_address: user.email,
          joined_at_ms: user.createdAt,
          email_confirmed: user.emailVerified ? 1 : 0,
          full_name: user.name,
          password_digest: user.passwordHash,
          auth_identity_providers: JSON.stringify(user.identityProviders),
          auth_two_factor: JSON.stringify(user.twoFactor),
          auth_last_sign_in_at: user.lastSignInAt ?? null,
          auth_admin: JSON.stringify(adminState(user)),
        })
        .onConflict((conflict) => conflict.doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async update(id, patch) {
      const current = await findBy("auth_id", id);
      if (current === null) return null;
      const columns = toColumns(patch, current);
      if (Object.keys(columns).length === 0) return current;
      const row = await db
        .updateTable("members")
        .set(columns)
        .where("auth_id", "=", id)
        .returningAll()
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },
    async recordSignIn(id, at) {
      // Compare-and-set: only the update that finds the column null records the first sign-in.
      const set = () => db.updateTable("members").set({ auth_last_sign_in_at: at }).where("auth_id", "=", id);
      const later = await set().where("auth_last_sign_in_at", "is not", null).executeTakeFirst();
      if (Number(later.numUpdatedRows) > 0) return false;
      const first = await set().where("auth_last_sign_in_at", "is", null).executeTakeFirst();
      return Number(first.numUpdatedRows) > 0;
    },
    async replacePasswordHash(id, expected, next) {
      // Compare-and-set: a password set meanwhile (a reset) is not overwritten by a login's rehash.
      const result = await db
        .updateTable("members")
        .set({ password_digest: next })
        .where("auth_id", "=", id)
        .where("password_digest", "=", expected)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async changeEmail(id, from, to): Promise<EmailChangeResult> {
      // One conditional UPDATE: the unique index on email_address lets one of two moves to an
      // address (or a sign-up with it) win; the other's statement fails on it.
      try {
        const row = await db
          .updateTable("members")
          .set({ email_address: to, email_confirmed: 1 })
          .where("auth_id", "=", id)
          .where("email_address", "=", from)
          .returningAll()
          .executeTakeFirst();
        return row ? { status: "changed", user: toUser(row) } : { status: "stale" };
      } catch (error) {
        if (/unique|duplicate/i.test(String((error as Error).message))) return { status: "taken" };
        throw error;
      }
    },
    async listUsers({ prefix, after, limit }) {
      // Keyset pagination on the unique email_address (its index keeps a page O(limit)).
      let query = db.selectFrom("members").selectAll();
      if (prefix !== "")
        query = query.where("email_address", ">=", prefix).where("email_address", "<", `${prefix}\u{10FFFF}`);
      if (after !== undefined) query = query.where("email_address", ">", after);
      const rows = await query.orderBy("email_address").limit(limit).execute();
      return rows.map(toUser);
    },
    async delete(id) {
      const result = await db.deleteFrom("members").where("auth_id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
