/** A second factor a user can have turned on. */
export type TwoFactorMethod = "totp" | "email";

/** The 2FA settings kept with a user. */
export interface TwoFactorSettings {
  /** The methods turned on, in the order they were enabled; empty when 2FA is off. */
  methods: TwoFactorMethod[];
  /** The method offered first at login; null when `methods` is empty. */
  preferredMethod: TwoFactorMethod | null;
  /** The TOTP secret, encrypted by the core before it reaches the store; null without TOTP. */
  totpSecretEncrypted: string | null;
  /** Hashes of the unused recovery codes. */
  recoveryCodeHashes: string[];
}

/** The settings of an account without 2FA. */
export const NO_TWO_FACTOR: Readonly<TwoFactorSettings> = Object.freeze({
  methods: [],
  preferredMethod: null,
  totpSecretEncrypted: null,
  recoveryCodeHashes: [],
});

/** A user as the store keeps it. */
export interface UserRecord {
  /** Opaque, unique, assigned by the core on create. */
  id: string;
  /** Normalized (`normalizeEmail`: trimmed, NFKC, lower-cased, IDNA ASCII domain); unique across users. */
  email: string;
  emailVerified: boolean;
  name: string | null;
  /** The password hash, or null for an account that signs in only through identity providers. */
  passwordHash: string | null;
  /** Identity providers linked to the account, e.g. `["github"]`. */
  identityProviders: string[];
  twoFactor: TwoFactorSettings;
  /** Milliseconds since the Unix epoch. */
  createdAt: number;
  /**
   * When the account last completed a sign-in, in milliseconds since the Unix epoch. Absent or
   * null: it has never signed in (a new account, or one created before stores kept this). Set by
   * `recordSignIn`; the core sends no login alert for the sign-in that finds it unset.
   */
  lastSignInAt?: number | null;
  /**
   * When an admin locked the account (`admin.lockUser`), in milliseconds since the Unix epoch;
   * absent or null: not locked. A locked account signs in by no method (`ACCOUNT_LOCKED`).
   */
  lockedAt?: number | null;
  /** Why it was locked, as the admin wrote it (at most 500 characters); null without a reason. */
  lockReason?: string | null;
  /** Who locked it: the acting admin's user id, or the host's `actor`; null when unknown. */
  lockedBy?: string | null;
  /**
   * True after `admin.requirePasswordChange`: the next password sign-in must set a new password
   * before it gets tokens (`PASSWORD_CHANGE_REQUIRED`). Absent or false: no change required.
   */
  passwordChangeRequired?: boolean;
}

/** What `UserStore.listUsers` takes. */
export interface UserListQuery {
  /** Only users whose normalized email starts with this (the empty string: every user). */
  prefix: string;
  /** Only users whose email sorts strictly after this one (the previous page's last); absent: from the start. */
  after?: string | undefined;
  /** At most this many users (1 to 101). */
  limit: number;
}

/**
 * What `UserStore.changeEmail` did: `changed` (the record after the change), `taken` (another
 * user has the new address: nothing changed) or `stale` (no such user, or its address is no
 * longer the expected one: nothing changed).
 */
export type EmailChangeResult =
  | { status: "changed"; user: UserRecord }
  | { status: "taken" }
  | { status: "stale" };

/** The fields `update` may change; `id`, `email` and `createdAt` never change through it. */
export type UserPatch = Partial<Omit<UserRecord, "id" | "email" | "createdAt">>;

/**
 * Where users live; usually the host's own database. Lookups by email receive the normalized
 * address. Every method rejects only when the store itself fails (reported as `DATABASE_FAILURE`).
 */
export interface UserStore {
  /** The user with this id, or null when there is none. */
  findById(id: string): Promise<UserRecord | null>;
  /** The user with this normalized email, or null when there is none. */
  findByEmail(email: string): Promise<UserRecord | null>;
  /**
   * Creates the user. Must be atomic on `email`: when a user with the same email (or the same
   * `id`) exists, also one created concurrently, it creates nothing and returns null.
   */
  create(user: UserRecord): Promise<UserRecord | null>;
  /**
   * Applies `patch` to the user and returns the updated record, or null when there is no such
   * user. `id`, `email` and `createdAt` in a patch (possible at run time despite the type) are ignored.
   */
  update(id: string, patch: UserPatch): Promise<UserRecord | null>;
  /**
   * Removes the user; its email is free for a new account afterwards. True when a user was
   * removed, false when there was none.
   */
  delete(id: string): Promise<boolean>;
  /**
   * Records a completed sign-in at `at` (milliseconds since the Unix epoch): sets `lastSignInAt`
   * to `at`. Resolves true when, and only when, this call found `lastSignInAt` unset (absent or
   * null), i.e. it recorded the account's first sign-in; false otherwise, and for an unknown id.
   * Must be atomic on that check, like a compare-and-set (`… set last_sign_in_at = ? where id = ?
   * and last_sign_in_at is null`): of concurrent calls on an account that never signed in,
   * exactly one resolves true.
   *
   * Optional so that a store written before it keeps compiling; the conformance suite expects it.
   * Without it the core falls back to `update(id, { lastSignInAt })` after reading the record,
   * which is not atomic (two simultaneous first sign-ins may both count as the first), and, if
   * the store does not keep `lastSignInAt` either, sends the alert for every sign-in and logs a
   * warning (`users.sign_in_untracked`) once.
   */
  recordSignIn?(id: string, at: number): Promise<boolean>;
  /**
   * Optional: the check that ends every sign-in (the user read again once its session is written)
   * and `recordSignIn` in one step (one statement where the store can). Reads the user as it is
   * now and, only when the account is not locked (`lockedAt` unset) and, with `passwordHash`
   * given, its password hash is still `passwordHash`, sets `lastSignInAt` to `at`; the read and the
   * write are atomic (nothing changes the user between them). Resolves the record as read, before
   * the write (its `lastSignInAt` is the previous one), or null for an unknown id (nothing written).
   * Without it the core calls `findById`, then `recordSignIn` when the sign-in goes on.
   */
  recordSignInIfUnchanged?(id: string, at: number, passwordHash?: string): Promise<UserRecord | null>;
  /**
   * Sets the user's `passwordHash` to `next` only when it is still `expected`, as a compare-and-set
   * (`… set password_hash = ? where id = ? and password_hash = ?`); resolves true when it did,
   * false when the hash was another one (or null) or there is no such user. `next` always differs
   * from `expected` (a new salt). Login uses it to replace a hash made with outdated parameters:
   * a reset that lands between the login's check and its rehash must win, not be overwritten with
   * a hash of the old password.
   *
   * Optional so that a store written before it keeps compiling; the conformance suite expects it.
   * Without it, login leaves outdated hashes as they are (they still verify) and logs
   * `users.rehash_unsupported` once.
   */
  replacePasswordHash?(id: string, expected: string, next: string): Promise<boolean>;
  /**
   * Moves the user from the normalized address `from` to the normalized address `to` and marks
   * it verified (`emailVerified: true`), only when the user's address is still `from`
   * (a compare-and-set, like `… set email = ?, email_verified = ? where id = ? and email = ?`) and
   * no other user has `to`. Must be atomic on the uniqueness of `to` exactly as `create` is: of
   * two users moving to one address at once (or a user moving to it while an account is created
   * with it), one wins and the other gets `taken`; on SQL the unique index on the email column
   * decides. Afterwards `findByEmail(from)` finds nobody (unless someone takes it later) and
   * `from` is free for a new account.
   *
   * Optional so that a store written before it keeps compiling; the conformance suite expects it.
   * Without it the address-change routes answer 500 `INTERNAL_ERROR` and log
   * `users.change_email_unsupported`.
   */
  changeEmail?(id: string, from: string, to: string): Promise<EmailChangeResult>;
  /**
   * Users whose email starts with `query.prefix` and sorts after `query.after`, in ascending
   * order of email (the store's own string order, the same on every call), at most `query.limit`.
   * Keyset pagination on the unique email: a page never repeats or skips a user that existed
   * when the listing started, whatever is inserted between pages. Should cost O(limit) (an
   * ordered index on email), not a scan of every user.
   *
   * Optional so that a store written before it keeps compiling; the conformance suite expects
   * it. Without it `admin.listUsers` rejects with `INTERNAL_ERROR` (logged as `users.list_unsupported`).
   */
  listUsers?(query: UserListQuery): Promise<UserRecord[]>;
}
