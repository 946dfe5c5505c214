import { createDecipheriv, hkdfSync } from "node:crypto";
import type { Kysely } from "kysely";
import type { AnyKysely } from "../ledger.js";
import {
  type ImportSource,
  pageSizeOf,
  type SourceAccount,
  type SourceIdentity,
  type SourceRow,
} from "../source.js";

/** Options of `supabaseSource`. */
export interface SupabaseSourceOptions {
  /**
   * A Kysely instance on the Supabase project's PostgreSQL, as a role that may read the `auth`
   * schema; the caller owns it and destroys it.
   */
  db: AnyKysely;
  /** How this project is told apart from other sources in the import ledger; default `supabase`. */
  name?: string;
  /** Users read per query; default 1000. */
  pageSize?: number;
  /**
   * The keys of Supabase's column encryption (`GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS`), by
   * key id: each a 256-bit key in base64url. Needed only when the auth server ran with
   * `GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPT=true`, which encrypts password hashes and TOTP secrets.
   */
  decryptionKeys?: Readonly<Record<string, string>>;
  /** The time a ban is compared with, in milliseconds since the Unix epoch; default `Date.now`. */
  now?: () => number;
}

/** The columns of `auth.users` the source reads. */
interface UserRow {
  id: string;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  raw_user_meta_data: unknown;
  is_sso_user: boolean;
  is_anonymous: boolean;
  banned_until: Date | null;
  deleted_at: Date | null;
}

/** The columns of `auth.identities` the source reads. */
interface IdentityRow {
  user_id: string;
  provider: string;
  provider_id: string;
}

/** The columns of `auth.mfa_factors` the source reads. */
interface FactorRow {
  id: string;
  user_id: string;
  factor_type: string;
  /** `unverified` or `verified`; only verified factors are read. */
  status: string;
  secret: string | null;
  created_at: Date;
}

/** A verified factor as the source reads it. */
type VerifiedFactor = Omit<FactorRow, "status">;

/** The three tables of Supabase's `auth` schema, as far as the source reads them. */
interface SupabaseAuth {
  users: UserRow;
  identities: IdentityRow;
  mfa_factors: FactorRow;
}

/** One page of users with their links and verified factors. */
interface Page {
  users: UserRow[];
  identities: Map<string, IdentityRow[]>;
  factors: Map<string, VerifiedFactor[]>;
}

/** What the mapping of one user needs besides its rows. */
interface MapContext {
  decryptionKeys: Readonly<Record<string, string>>;
  now: number;
}

/**
 * Supabase Auth's users as an import source (docs/import-supabase.md): `auth.users` with their
 * bcrypt `encrypted_password`, `email_confirmed_at` and the name of `raw_user_meta_data`,
 * their provider links from `auth.identities` and their verified TOTP factor from
 * `auth.mfa_factors`. Reads in keyset pages of `pageSize` users by id (and the page's links and
 * factors with one `IN (…)` each), so any number of users takes flat memory; `line` is the
 * user's position in id order. Users that cannot become a Portcullis account (deleted,
 * anonymous, phone-only, banned, SAML SSO, a second factor that cannot be carried) are skipped
 * rows with the reason in their detail.
 */
export function supabaseSource(options: SupabaseSourceOptions): ImportSource {
  const db = (options.db as Kysely<SupabaseAuth>).withSchema("auth");
  const pageSize = pageSizeOf(options.pageSize);
  return {
    name: options.name ?? "supabase",
    async *rows() {
      let line = 0;
      let after: string | null = null;
      for (;;) {
        const page = await readPage(db, after, pageSize);
        const context = { decryptionKeys: options.decryptionKeys ?? {}, now: options.now?.() ?? Date.now() };
        for (const user of page.users) {
          line += 1;
          yield toRow(user, page, line, context);
        }
        if (page.users.length < pageSize) return;
        after = page.users[page.users.length - 1]?.id ?? null;
      }
    },
  };
}

/** The users after `after` in id order, and their links and verified factors. */
async function readPage(db: Kysely<SupabaseAuth>, after: string | null, pageSize: number): Promise<Page> {
  let query = db
    .selectFrom("users")
    .select([
      "id",
      "email",
      "encrypted_password",
      "email_confirmed_at",
      "raw_user_meta_data",
      "is_sso_user",
      "is_anonymous",
      "banned_until",
      "deleted_at",
    ])
    .orderBy("id")
    .limit(pageSize);
  if (after !== null) query = query.where("id", ">", after);
  const users = await query.execute();
  if (users.length === 0) return { users, identities: new Map(), factors: new Map() };
  const ids = users.map((user) => user.id);
  const identities = await db
    .selectFrom("identities")
    .select(["user_id", "provider", "provider_id"])
    .where("user_id", "in", ids)
    .orderBy("user_id")
    .orderBy("provider")
    .orderBy("provider_id")
    .execute();
  const factors = await db
    .selectFrom("mfa_factors")
    .select(["id", "user_id", "factor_type", "secret", "created_at"])
    .where("user_id", "in", ids)
    .where("status", "=", "verified")
    .orderBy("created_at", "desc")
    .execute();
  return { users, identities: byUser(identities), factors: byUser(factors) };
}

function byUser<T extends { user_id: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(row.user_id, [...(map.get(row.user_id) ?? []), row]);
  return map;
}

/** One user as a row: its account, or why it is skipped. */
function toRow(user: UserRow, page: Page, line: number, context: MapContext): SourceRow {
  const skip = userProblem(user, page, context.now);
  if (skip) return { line, ...skip };
  const password = readSecret(user.encrypted_password, user.id, context.decryptionKeys);
  if ("problem" in password)
    return { line, skip: "unverifiable_hash", detail: `encrypted_password ${password.problem}` };
  const totp = totpOf(page.factors.get(user.id) ?? [], context.decryptionKeys);
  if ("skip" in totp) return { line, ...totp };
  const account: SourceAccount = {
    id: user.id,
    email: user.email ?? "",
    emailVerified: user.email_confirmed_at !== null,
    name: nameOf(user.raw_user_meta_data),
    passwordHash: password.value === "" ? null : password.value,
    identities: identitiesOf(page.identities.get(user.id) ?? []),
    totp: totp.secret === null ? null : { secret: totp.secret },
  };
  return { line, account };
}

type Skip = Extract<SourceRow, { skip: unknown }>;

/** Why a user cannot become an account whatever its secrets hold, or null. */
function userProblem(user: UserRow, page: Page, now: number): Omit<Skip, "line"> | null {
  if (user.deleted_at !== null)
    return { skip: "invalid_row", detail: `deleted in Supabase at ${user.deleted_at.toISOString()}` };
  if (user.is_anonymous)
    return { skip: "invalid_row", detail: "an anonymous user: no address or password to sign in with" };
  if (user.is_sso_user) {
    const links = (page.identities.get(user.id) ?? []).map((identity) => identity.provider).join(", ");
    return {
      skip: "unknown_provider",
      detail: `a SAML SSO user (${links || "sso"}): set the connection up in Portcullis (docs/sso.md), which creates the account at its first sign-in`,
    };
  }
  if (user.email === null || user.email.trim() === "")
    return { skip: "invalid_row", detail: "no email: a phone-only user cannot sign in to Portcullis" };
  if (user.banned_until !== null && user.banned_until.getTime() > now)
    return {
      skip: "invalid_row",
      detail: `banned until ${user.banned_until.toISOString()}: run the import again once the ban is over`,
    };
  return null;
}

/** The name of `raw_user_meta_data`: `full_name`, else `name`, else null. */
function nameOf(metadata: unknown): string | null {
  if (typeof metadata !== "object" || metadata === null) return null;
  const { full_name: fullName, name } = metadata as Record<string, unknown>;
  for (const value of [fullName, name]) if (typeof value === "string" && value.trim() !== "") return value;
  return null;
}

/** Providers whose identity is the account's own address or phone, not a link to another system. */
const NOT_LINKS = new Set(["email", "phone"]);

function identitiesOf(rows: IdentityRow[]): SourceIdentity[] {
  return rows
    .filter((row) => !NOT_LINKS.has(row.provider))
    .map((row) => ({ provider: row.provider, subject: row.provider_id }));
}

/**
 * The secret of the newest verified TOTP factor, decrypted, or null when the user has no
 * verified factor. A verified factor of another kind (WebAuthn, phone) with no TOTP beside it is
 * a skip: the owner turned a second factor on, and the account is never imported without one.
 */
function totpOf(
  factors: VerifiedFactor[],
  keys: Readonly<Record<string, string>>,
): { secret: string | null } | Omit<Skip, "line"> {
  const totp = factors.find((factor) => factor.factor_type === "totp");
  if (!totp) {
    const other = factors[0];
    return other
      ? {
          skip: "two_factor_unreadable",
          detail: `a verified ${other.factor_type} factor and no TOTP: Portcullis cannot carry it over`,
        }
      : { secret: null };
  }
  const secret = readSecret(totp.secret, totp.id, keys);
  if ("problem" in secret) return { skip: "two_factor_unreadable", detail: `TOTP secret ${secret.problem}` };
  if (secret.value === "")
    return { skip: "two_factor_unreadable", detail: "TOTP factor verified but its secret is empty" };
  return { secret: secret.value };
}

/** A column value in the clear, decrypted when Supabase's column encryption wrote it. */
function readSecret(
  stored: string | null,
  ownerId: string,
  keys: Readonly<Record<string, string>>,
): { value: string } | { problem: string } {
  if (stored === null || !stored.startsWith("{")) return { value: stored ?? "" };
  const sealed = parseSealed(stored);
  if (!sealed) return { problem: "looks encrypted but is not Supabase's encrypted form" };
  const key = keys[sealed.keyId];
  if (key === undefined)
    return {
      problem: `is encrypted with Supabase key id ${sealed.keyId}: pass its key (GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS)`,
    };
  try {
    return { value: openSealed(sealed, ownerId, key) };
  } catch (error) {
    return { problem: `does not decrypt with Supabase key id ${sealed.keyId}: ${(error as Error).message}` };
  }
}

/** Supabase's encrypted column value: JSON of the key id, `aes-gcm-hkdf`, and the base64 data and nonce. */
interface Sealed {
  keyId: string;
  data: Buffer;
  nonce: Buffer;
}

function parseSealed(stored: string): Sealed | null {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { key_id: keyId, alg, data, nonce } = value as Record<string, unknown>;
  if (typeof keyId !== "string" || keyId === "" || alg !== "aes-gcm-hkdf") return null;
  if (typeof data !== "string" || typeof nonce !== "string") return null;
  const sealed = { keyId, data: Buffer.from(data, "base64"), nonce: Buffer.from(nonce, "base64") };
  return sealed.nonce.length === 12 && sealed.data.length > 16 ? sealed : null;
}

/**
 * Opens a value as Supabase's auth server sealed it: AES-256-GCM (the 16-byte tag after the
 * ciphertext) under a key derived by HKDF-SHA256 from the configured key, with no salt and the
 * owning row's id (the user's or the factor's) as the info, so a value only opens on its own row.
 */
function openSealed({ data, nonce }: Sealed, ownerId: string, keyBase64Url: string): string {
  const master = Buffer.from(keyBase64Url, "base64url");
  if (master.length !== 32) throw new Error("the key is not 256 bits of base64url");
  const key = Buffer.from(hkdfSync("sha256", master, Buffer.alloc(0), ownerId, 32));
  const decipher = createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}

/**
 * The decryption keys in the auth server's own format (the value of its
 * `GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS`): `<key id>:<key>` pairs separated by commas,
 * each key 256 bits in base64url. Throws a `TypeError` naming the pair that is not one.
 */
export function parseSupabaseDecryptionKeys(text: string): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const pair of text.split(",").map((part) => part.trim())) {
    if (pair === "") continue;
    const colon = pair.indexOf(":");
    const [id, key] = [pair.slice(0, colon), pair.slice(colon + 1)];
    if (colon < 1)
      throw new TypeError("Supabase decryption keys: a pair has no key id (expected <key id>:<key>)");
    if (!/^[A-Za-z0-9_-]{43}$/.test(key))
      throw new TypeError(`Supabase decryption key ${id}: expected a 256-bit key in base64url`);
    keys[id] = key;
  }
  return keys;
}
