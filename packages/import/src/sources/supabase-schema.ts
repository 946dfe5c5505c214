import { createCipheriv, hkdfSync, randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import { Secret } from "otpauth";

/**
 * Test support (not part of the package's exports): Supabase's `auth` schema, as far as the
 * Supabase source reads it, and users written into it as Supabase's auth server writes them.
 *
 * The tables are written here from the supabase/auth migrations (snapshot bc32168, August 2026),
 * in our own words, as they stand after all of them:
 * - `auth.users`: 00_init_auth_schema, 20210710035447 (phone columns; confirmed_at renamed
 *   email_confirmed_at), 20210722035447 (generated confirmed_at), 20210730183235 (email change
 *   columns; email_change_token renamed email_change_token_new), 20220114185221, 20220114185340
 *   (banned_until), 20220323170000 (reauthentication), 20220429102000 (token indexes),
 *   20221215195500 (is_sso_user; the email's unique constraint replaced by a partial index),
 *   20230116124310 (phone as text), 20230116124412 (deleted_at), 20240214120130 (is_anonymous);
 * - `auth.identities`: 20210909172000, 20211122151130, 20221215195800 (generated email),
 *   20231117164230 (the provider's id renamed provider_id; a uuid id as the primary key);
 * - `auth.mfa_factors` and its enums: 20221003041349, 20221011041400, 20230914180801,
 *   20240729123726 (factor type phone; phone column), 20240802193726 (last_challenged_at),
 *   20240806073726 (phone no longer unique alone), 20241009103726 (WebAuthn columns),
 *   20250925093508 (last WebAuthn challenge).
 * Grants, row-level security, comments and the other tables of the schema are left out.
 */

/** What the fixture needs of a PostgreSQL client (`pg.Client`, `pg.Pool`). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

const USERS = `create table auth.users (
  instance_id uuid,
  id uuid not null unique,
  aud varchar(255),
  role varchar(255),
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_token varchar(255),
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  email_change_token_new varchar(255),
  email_change varchar(255),
  email_change_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb,
  raw_user_meta_data jsonb,
  is_super_admin boolean,
  created_at timestamptz,
  updated_at timestamptz,
  phone text unique default null,
  phone_confirmed_at timestamptz default null,
  phone_change text default '',
  phone_change_token varchar(255) default '',
  phone_change_sent_at timestamptz default null,
  confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
  email_change_token_current varchar(255) default '',
  email_change_confirm_status smallint default 0
    check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
  banned_until timestamptz,
  reauthentication_token varchar(255) default '',
  reauthentication_sent_at timestamptz default null,
  is_sso_user boolean not null default false,
  deleted_at timestamptz,
  is_anonymous boolean not null default false,
  constraint users_pkey primary key (id)
)`;

const USER_INDEXES = [
  "create index users_instance_id_idx on auth.users (instance_id)",
  "create index users_instance_id_email_idx on auth.users (instance_id, lower(email))",
  "create unique index users_email_partial_key on auth.users (email) where is_sso_user = false",
  "create index users_is_anonymous_idx on auth.users (is_anonymous)",
  ...[
    "confirmation_token",
    "recovery_token",
    "email_change_token_current",
    "email_change_token_new",
    "reauthentication_token",
  ].map(
    (column) => `create unique index ${column}_idx on auth.users (${column}) where ${column} !~ '^[0-9 ]*$'`,
  ),
];

const IDENTITIES = `create table auth.identities (
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz,
  updated_at timestamptz,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  id uuid default gen_random_uuid() primary key,
  constraint identities_provider_id_provider_unique unique (provider_id, provider)
)`;

const MFA_FACTORS = `create table auth.mfa_factors (
  id uuid not null primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type auth.factor_type not null,
  status auth.factor_status not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  secret text,
  phone text default null,
  last_challenged_at timestamptz unique default null,
  web_authn_credential jsonb,
  web_authn_aaguid uuid,
  last_webauthn_challenge_data jsonb
)`;

const FACTOR_INDEXES = [
  "create unique index mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id) where trim(friendly_name) <> ''",
  "create index factor_id_created_at_idx on auth.mfa_factors (user_id, created_at)",
  "create index mfa_factors_user_id_idx on auth.mfa_factors (user_id)",
  "create unique index unique_phone_factor_per_user on auth.mfa_factors (user_id, phone)",
];

/** Creates the `auth` schema with `users`, `identities`, `mfa_factors` and the enums they use. */
export async function createSupabaseAuthSchema(db: Queryable): Promise<void> {
  const statements = [
    "create schema auth",
    "create type auth.factor_type as enum ('totp', 'webauthn', 'phone')",
    "create type auth.factor_status as enum ('unverified', 'verified')",
    "create type auth.aal_level as enum ('aal1', 'aal2', 'aal3')",
    USERS,
    ...USER_INDEXES,
    IDENTITIES,
    "create index identities_user_id_idx on auth.identities (user_id)",
    "create index identities_email_idx on auth.identities (email text_pattern_ops)",
    MFA_FACTORS,
    ...FACTOR_INDEXES,
  ];
  for (const statement of statements) await db.query(statement);
}

/**
 * Seals a value as Supabase's auth server does with column encryption on: AES-256-GCM under a key
 * derived by HKDF-SHA256 (no salt, the owning row's id as info) from the configured key, stored
 * as JSON of the key id, `aes-gcm-hkdf`, and the base64 of the data (tag appended) and nonce.
 */
export function supabaseEncrypt(value: string, ownerId: string, keyId: string, keyBase64Url: string): string {
  const key = Buffer.from(
    hkdfSync("sha256", Buffer.from(keyBase64Url, "base64url"), Buffer.alloc(0), ownerId, 32),
  );
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const data = Buffer.concat([cipher.update(value, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return JSON.stringify({
    key_id: keyId,
    alg: "aes-gcm-hkdf",
    data: data.toString("base64"),
    nonce: nonce.toString("base64"),
  });
}

/** bcrypt at cost 10 as the auth server writes it (Go's bcrypt names its hashes `$2a$`; the algorithm is the same). */
export const goTrueBcrypt = (password: string) => bcrypt.hashSync(password, 10).replace(/^\$2b\$/, "$2a$");

/** A fresh TOTP secret in base32, 160 bits as the auth server makes them. */
export const newTotpSecret = () => new Secret({ size: 20 }).base32;

/** The id of the fixture's `n`th user: the ids sort in the order of `n`, as the source reads them. */
export const fixtureUserId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** What the fixture wrote that a test checks against. */
export interface SupabaseFixture {
  passwords: { ada: string; brendan: string; chiara: string; gustav: string };
  /** The TOTP secrets in the clear: Ada's stored as is, Chiara's sealed under `keyId`. */
  totp: { ada: string; chiara: string };
  keyId: string;
  /** The column encryption key (`GOTRUE_SECURITY_DB_ENCRYPTION_ENCRYPTION_KEY`), base64url. */
  key: string;
  githubId: string;
}

const INSTANCE = "00000000-0000-0000-0000-000000000000";

interface FixtureUser {
  n: number;
  email: string | null;
  password?: string | null;
  confirmedAt?: Date | null;
  metadata?: Record<string, unknown>;
  phone?: string;
  extra?: Partial<Record<"is_sso_user" | "is_anonymous" | "banned_until" | "deleted_at", unknown>>;
}

/** A user row as the auth server inserts it at sign-up (empty tokens, the app metadata of its provider). */
async function insertUser(db: Queryable, user: FixtureUser, provider: string): Promise<string> {
  const id = fixtureUserId(user.n);
  const at = new Date(Date.UTC(2025, 0, user.n));
  const extra = user.extra ?? {};
  await db.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       confirmation_token, recovery_token, email_change_token_new, email_change, raw_app_meta_data,
       raw_user_meta_data, created_at, updated_at, phone, phone_confirmed_at, is_sso_user, is_anonymous,
       banned_until, deleted_at)
     values ($1, $2, 'authenticated', 'authenticated', $3, $4, $5, '', '', '', '', $6, $7, $8, $8, $9, $10,
       $11, $12, $13, $14)`,
    [
      INSTANCE,
      id,
      user.email,
      user.password ?? null,
      user.confirmedAt ?? null,
      { provider, providers: [provider] },
      {
        sub: id,
        email: user.email ?? undefined,
        email_verified: Boolean(user.confirmedAt),
        ...user.metadata,
      },
      at,
      user.phone ?? null,
      user.phone ? at : null,
      extra.is_sso_user ?? false,
      extra.is_anonymous ?? false,
      extra.banned_until ?? null,
      extra.deleted_at ?? null,
    ],
  );
  return id;
}

async function insertIdentity(
  db: Queryable,
  userId: string,
  provider: string,
  providerId: string,
  data: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     values ($1, $2, $3, $4, now(), now(), now())`,
    [providerId, userId, { sub: providerId, ...data }, provider],
  );
}

async function insertFactor(
  db: Queryable,
  factor: { userId: string; type: string; status: string; secret: string | null; n: number },
  seal?: (factorId: string) => string,
): Promise<void> {
  const id = `10000000-0000-4000-8000-${factor.n.toString(16).padStart(12, "0")}`;
  await db.query(
    `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
     values ($1, $2, $3, $4, $5, now(), now(), $6)`,
    [id, factor.userId, `factor ${factor.n}`, factor.type, factor.status, seal ? seal(id) : factor.secret],
  );
}

/** An `email` identity as the auth server makes one at sign-up: the user's id as the provider's id. */
const emailIdentity = (db: Queryable, userId: string, email: string, verified: boolean) =>
  insertIdentity(db, userId, "email", userId, { email, email_verified: verified, phone_verified: false });

/**
 * Fills the schema of `createSupabaseAuthSchema` with eleven users, in id order:
 * 1 Ada: bcrypt password, confirmed, `full_name`, a verified TOTP factor (secret in the clear);
 * 2 Brendan: `name` only, an unverified TOTP factor, a ban that is over;
 * 3 Chiara: unconfirmed, a password set before column encryption was on, a verified TOTP
 *   factor enrolled after it (its secret sealed);
 * 4 Daniel: signed up with GitHub, no password (an empty `encrypted_password`);
 * 5 a phone-only user; 6 an anonymous user; 7 a deleted user; 8 a user banned for a year;
 * 9 a SAML SSO user; 10 Erin: a verified WebAuthn factor and no TOTP; 11 Gustav: a password
 *   sealed by column encryption.
 */
export async function fillSupabaseAuth(db: Queryable): Promise<SupabaseFixture> {
  const fixture: SupabaseFixture = {
    passwords: {
      ada: "ada's supabase password",
      brendan: "brendan's password",
      chiara: "chiara's password",
      gustav: "gustav's password",
    },
    totp: { ada: newTotpSecret(), chiara: newTotpSecret() },
    keyId: "key-2025",
    key: randomBytes(32).toString("base64url"),
    githubId: "583231",
  };
  const seal = (value: string, ownerId: string) =>
    supabaseEncrypt(value, ownerId, fixture.keyId, fixture.key);
  const confirmedAt = new Date(Date.UTC(2025, 1, 1));
  const ada = await insertUser(
    db,
    {
      n: 1,
      email: "ada@example.test",
      password: goTrueBcrypt(fixture.passwords.ada),
      confirmedAt,
      metadata: { full_name: "Ada Lovelace" },
    },
    "email",
  );
  await emailIdentity(db, ada, "ada@example.test", true);
  await insertFactor(db, { userId: ada, type: "totp", status: "verified", secret: fixture.totp.ada, n: 1 });
  const brendan = await insertUser(
    db,
    {
      n: 2,
      email: "brendan@example.test",
      password: goTrueBcrypt(fixture.passwords.brendan),
      confirmedAt,
      metadata: { name: "Brendan" },
      extra: { banned_until: new Date(Date.now() - 86_400_000) },
    },
    "email",
  );
  await emailIdentity(db, brendan, "brendan@example.test", true);
  await insertFactor(db, {
    userId: brendan,
    type: "totp",
    status: "unverified",
    secret: newTotpSecret(),
    n: 2,
  });
  const chiara = fixtureUserId(3);
  await insertUser(
    db,
    { n: 3, email: "chiara@example.test", password: goTrueBcrypt(fixture.passwords.chiara) },
    "email",
  );
  await emailIdentity(db, chiara, "chiara@example.test", false);
  await insertFactor(db, { userId: chiara, type: "totp", status: "verified", secret: null, n: 3 }, (id) =>
    seal(fixture.totp.chiara, id),
  );
  await fillOthers(db, fixture, confirmedAt);
  return fixture;
}

/** Users 4 to 11 of `fillSupabaseAuth`. */
async function fillOthers(db: Queryable, fixture: SupabaseFixture, confirmedAt: Date): Promise<void> {
  const daniel = await insertUser(
    db,
    {
      n: 4,
      email: "daniel@example.test",
      password: "",
      confirmedAt,
      metadata: { full_name: "Daniel", user_name: "dan" },
    },
    "github",
  );
  await insertIdentity(db, daniel, "github", fixture.githubId, {
    email: "daniel@example.test",
    email_verified: true,
    provider_id: fixture.githubId,
    user_name: "dan",
    iss: "https://api.github.com",
  });
  const phone = await insertUser(db, { n: 5, email: null, phone: "15550000005" }, "phone");
  await insertIdentity(db, phone, "phone", phone, { phone: "15550000005", phone_verified: true });
  await insertUser(db, { n: 6, email: null, extra: { is_anonymous: true } }, "anonymous");
  await insertUser(
    db,
    { n: 7, email: "9f86d081884c7d65@deleted.invalid", extra: { deleted_at: confirmedAt } },
    "email",
  );
  const banned = await insertUser(
    db,
    {
      n: 8,
      email: "mallory@example.test",
      password: goTrueBcrypt("mallory's password"),
      confirmedAt,
      extra: { banned_until: new Date(Date.now() + 365 * 86_400_000) },
    },
    "email",
  );
  await emailIdentity(db, banned, "mallory@example.test", true);
  const sso = await insertUser(
    db,
    { n: 9, email: "frank@corp.example.test", confirmedAt, extra: { is_sso_user: true } },
    "sso:7d1a2b3c-0000-4000-8000-000000000001",
  );
  await insertIdentity(db, sso, "sso:7d1a2b3c-0000-4000-8000-000000000001", "frank@corp.example.test", {
    email: "frank@corp.example.test",
  });
  const erin = await insertUser(
    db,
    { n: 10, email: "erin@example.test", password: goTrueBcrypt("erin's password"), confirmedAt },
    "email",
  );
  await emailIdentity(db, erin, "erin@example.test", true);
  await insertFactor(db, { userId: erin, type: "webauthn", status: "verified", secret: null, n: 10 });
  const gustav = fixtureUserId(11);
  const sealed = supabaseEncrypt(goTrueBcrypt(fixture.passwords.gustav), gustav, fixture.keyId, fixture.key);
  await insertUser(db, { n: 11, email: "gustav@example.test", password: sealed, confirmedAt }, "email");
  await emailIdentity(db, gustav, "gustav@example.test", true);
}
