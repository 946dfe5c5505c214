import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { type AuthStores, fromNodeRequest, httpHandlerFor, writeNodeResponse } from "@portcullis/core";
import { createSqlStores } from "@portcullis/store-sql";
import { Kysely, MysqlDialect, PostgresDialect, type RawBuilder, sql } from "kysely";
import { createConnection, createPool } from "mysql2";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDatabase, usePostgres } from "../../../store-sql/src/test-databases.js";
import { useMysql } from "../../../store-sql/src/test-mysql.js";
import {
  createIdpBoot,
  hasSession,
  signIn,
  TestBrowser,
  userIdOf,
} from "../../../testing/src/identity-provider-fixture.js";
import { closeServer } from "../../../testing/src/listening-server.js";
import { importAccounts } from "../import-accounts.js";
import type { AnyKysely } from "../ledger.js";
import { openTarget } from "../open-target.js";
import type { SourceRow } from "../source.js";
import { tablesNow } from "../test-scenario.js";
import { AuthjsSourceError, authjsSource } from "./authjs.js";

// The Auth.js source on Auth.js's own tables: @auth/pg-adapter's schema on PostgreSQL and
// @auth/kysely-adapter's migration on PostgreSQL and MariaDB, each in a database of this file's
// own, filled through the adapter's methods; then an import into MariaDB and a real OpenID
// Connect sign-in through the core that must land on the imported account.

/** A user as Auth.js hands it to its adapter's `createUser`. */
interface NewUser {
  id: string;
  email: string | null;
  emailVerified: Date | null;
  name: string | null;
}

/** A provider account as Auth.js hands it to `linkAccount`. */
interface NewAccount {
  userId: string;
  type: string;
  provider: string;
  providerAccountId: string;
}

/** The adapter methods that fill Auth.js's tables here, as Auth.js itself calls them at sign-in. */
interface AuthjsAdapter {
  createUser(user: NewUser): Promise<{ id: string | number }>;
  updateUser(user: { id: string; emailVerified: Date }): Promise<unknown>;
  linkAccount(account: NewAccount): Promise<unknown>;
}

/**
 * An Auth.js adapter factory, typed by the methods above: the packages' own types import
 * @auth/core's, which bring in the DOM library (through preact's JSX types), whose `fetch` and
 * `Headers` clash with Node's in the Portcullis sources this file compiles with.
 */
async function adapterFactory<Client>(pkg: string, name: string): Promise<(client: Client) => AuthjsAdapter> {
  const loaded: Record<string, unknown> = await import(pkg);
  return loaded[name] as (client: Client) => AuthjsAdapter;
}

/** The subject of the test OpenID Connect provider's account that Alice signed in with at Auth.js. */
const OIDC_SUBJECT = `authjs-oidc-${randomBytes(4).toString("hex")}`;

interface Person {
  user: Omit<NewUser, "id">;
  /** Verified later, as Auth.js's email provider does: `updateUser` sets `emailVerified`. */
  verifyLater?: boolean;
  links: Pick<NewAccount, "type" | "provider" | "providerAccountId">[];
}

/** Auth.js's users, in the order they signed up; `withoutEmail` only where the schema allows it. */
function people(withoutEmail: boolean): Person[] {
  const list: Person[] = [
    {
      user: { email: "alice@example.test", emailVerified: null, name: "Alice" },
      verifyLater: true,
      links: [
        { type: "oidc", provider: "oidc", providerAccountId: OIDC_SUBJECT },
        { type: "oauth", provider: "github", providerAccountId: "1001" },
      ],
    },
    {
      // A magic-link sign-in and a passkey: Auth.js rows that are no provider links.
      user: { email: "Bob@Example.test", emailVerified: null, name: null },
      links: [
        { type: "email", provider: "nodemailer", providerAccountId: "Bob@Example.test" },
        { type: "webauthn", provider: "passkey", providerAccountId: "credential-of-bob" },
      ],
    },
    {
      // Signed in with Twitter, which gave no address.
      user: { email: null, emailVerified: null, name: "No Address" },
      links: [{ type: "oauth", provider: "twitter", providerAccountId: "555" }],
    },
    {
      user: { email: "carol@example.test", emailVerified: new Date("2024-05-01T10:00:00Z"), name: "Carol" },
      links: [{ type: "oidc", provider: "google", providerAccountId: "117000000000000000001" }],
    },
    {
      user: { email: "dave@example.test", emailVerified: null, name: "Dave" },
      links: [{ type: "oauth", provider: "gitlab", providerAccountId: "8" }],
    },
  ];
  return withoutEmail ? list : list.filter((person) => person.user.email !== null);
}

/** Fills Auth.js's tables through the adapter; the users' ids by address ("" for none). */
async function fill(adapter: AuthjsAdapter, withoutEmail: boolean): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const person of people(withoutEmail)) {
    const { id } = await adapter.createUser({ id: randomUUID(), ...person.user });
    const userId = String(id);
    if (person.verifyLater) await adapter.updateUser({ id: userId, emailVerified: new Date() });
    for (const link of person.links) await adapter.linkAccount({ ...link, userId });
    ids.set(person.user.email ?? "", userId);
  }
  return ids;
}

/** What the source must give for each user, by id, before line numbers. */
function expectedRows(ids: Map<string, string>): Map<string, Omit<SourceRow, "line">> {
  const expected = new Map<string, Omit<SourceRow, "line">>();
  const account = (email: string, rest: object) =>
    expected.set(ids.get(email) ?? "", { account: { id: ids.get(email), email, ...rest } });
  account("alice@example.test", {
    emailVerified: true,
    name: "Alice",
    identities: [
      { provider: "github", subject: "1001" },
      { provider: "oidc", subject: OIDC_SUBJECT },
    ],
  });
  account("Bob@Example.test", { emailVerified: false, name: null, identities: [] });
  account("carol@example.test", {
    emailVerified: true,
    name: "Carol",
    identities: [{ provider: "google", subject: "117000000000000000001" }],
  });
  account("dave@example.test", {
    emailVerified: false,
    name: "Dave",
    identities: [{ provider: "gitlab", subject: "8" }],
  });
  const nobody = ids.get("");
  if (nobody !== undefined)
    expected.set(nobody, {
      skip: "invalid_row",
      detail: expect.stringContaining(`user ${nobody} has no email`),
    });
  return expected;
}

const rowsOf = async (db: AnyKysely, pageSize: number) => {
  const rows: SourceRow[] = [];
  for await (const row of authjsSource({ db, pageSize }).rows()) rows.push(row);
  return rows;
};

/** A source database of the test's own, filled through the adapter. */
interface Filled {
  db: AnyKysely;
  ids: Map<string, string>;
  usersTable: string;
  withoutEmail: boolean;
}

/** The source's rows over `filled`: each user once, in the database's id order, as expected, whatever the page size. */
function sourceTests(label: string, filled: () => Filled): void {
  it(`authjsSource - ${label}: every user once in id order, its verified flag, name and provider links, across pages`, async () => {
    const { db, ids, usersTable, withoutEmail } = filled();
    const order = await db.selectFrom(usersTable).select("id").orderBy("id").execute();
    const expected = expectedRows(ids);
    expect(order).toHaveLength(withoutEmail ? 5 : 4);
    const want = order.map(({ id }, at) => ({ line: at + 1, ...expected.get(String(id)) }));
    expect(await rowsOf(db, 2)).toEqual(want);
    expect(await rowsOf(db, 1000)).toEqual(want);
    expect(await rowsOf(db, 1)).toEqual(want);
  });
}

/** @auth/pg-adapter's documented schema (SERIAL ids, camel-case columns quoted). */
const PG_ADAPTER_SCHEMA = [
  `create table verification_token (
     identifier text not null, expires timestamptz not null, token text not null,
     primary key (identifier, token))`,
  `create table accounts (
     id serial, "userId" integer not null, type varchar(255) not null, provider varchar(255) not null,
     "providerAccountId" varchar(255) not null, refresh_token text, access_token text, expires_at bigint,
     id_token text, scope text, session_state text, token_type text,
     primary key (id))`,
  `create table sessions (
     id serial, "userId" integer not null, expires timestamptz not null, "sessionToken" varchar(255) not null,
     primary key (id))`,
  `create table users (
     id serial, name varchar(255), email varchar(255), "emailVerified" timestamptz, image text,
     primary key (id))`,
];

/** @auth/kysely-adapter's documented migration; on MariaDB with its names for the UUID default and time type. */
async function kyselyAdapterMigration(db: AnyKysely, mariadb: boolean): Promise<void> {
  const uuidDefault: RawBuilder<unknown> = mariadb ? sql`(uuid())` : sql`gen_random_uuid()`;
  const time = mariadb ? sql`datetime(3)` : sql`timestamptz`;
  await db.schema
    .createTable("User")
    .addColumn("id", "uuid", (col) => col.primaryKey().defaultTo(uuidDefault))
    .addColumn("name", "text")
    .addColumn("email", "text", (col) => col.unique().notNull())
    .addColumn("emailVerified", time)
    .addColumn("image", "text")
    .execute();
  await db.schema
    .createTable("Account")
    .addColumn("id", "uuid", (col) => col.primaryKey().defaultTo(uuidDefault))
    .addColumn("userId", "uuid", (col) => col.references("User.id").onDelete("cascade").notNull())
    .addColumn("type", "text", (col) => col.notNull())
    .addColumn("provider", "text", (col) => col.notNull())
    .addColumn("providerAccountId", "text", (col) => col.notNull())
    .addColumn("refresh_token", "text")
    .addColumn("access_token", "text")
    .addColumn("expires_at", "bigint")
    .addColumn("token_type", "text")
    .addColumn("scope", "text")
    .addColumn("id_token", "text")
    .addColumn("session_state", "text")
    .execute();
  await db.schema
    .createTable("Session")
    .addColumn("id", "uuid", (col) => col.primaryKey().defaultTo(uuidDefault))
    .addColumn("userId", "uuid", (col) => col.references("User.id").onDelete("cascade").notNull())
    .addColumn("sessionToken", "text", (col) => col.notNull().unique())
    .addColumn("expires", time, (col) => col.notNull())
    .execute();
  await db.schema
    .createTable("VerificationToken")
    .addColumn("identifier", "text", (col) => col.notNull())
    .addColumn("token", "text", (col) => col.notNull().unique())
    .addColumn("expires", time, (col) => col.notNull())
    .execute();
  await db.schema.createIndex("Account_userId_index").on("Account").column("userId").execute();
  await db.schema.createIndex("Session_userId_index").on("Session").column("userId").execute();
}

/** A database of the test's own on the MariaDB of `useMysql`; null (after its loud line) without one. */
async function mariadbDatabase(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const server = await useMysql();
  if (server === null) return null;
  const name = `portcullis_authjs_${randomBytes(6).toString("hex")}`;
  const admin = (statement: string) =>
    new Promise<void>((resolve, reject) => {
      const connection = createConnection({ uri: server.url });
      connection.query(statement, (error) => {
        connection.end();
        if (error) reject(error);
        else resolve();
      });
    });
  await admin(`create database ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin(`drop database if exists ${name}`);
      await server.stop();
    },
  };
}

/** Cleanups of `beforeAll`, run in reverse by `afterAll`. */
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A PostgreSQL database of the test's own with a Kysely on it and a pg pool for the adapter. */
async function postgresSource(): Promise<{ db: AnyKysely; pool: pg.Pool }> {
  const server = await usePostgres();
  const database = await postgresDatabase(server.url);
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // The drop (`with (force)`) may end a connection the pool is still closing: not a fault here.
  pool.on("error", () => {});
  const db: AnyKysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  cleanups.push(server.stop, database.drop, () => db.destroy());
  return { db, pool };
}

const pgAdapterSource = {} as Filled;
describe("Auth.js with @auth/pg-adapter on PostgreSQL", () => {
  let pool: pg.Pool;
  beforeAll(async () => {
    const source = await postgresSource();
    const { db } = source;
    pool = source.pool;
    for (const statement of PG_ADAPTER_SCHEMA) await sql.raw(statement).execute(db);
    const PostgresAdapter = await adapterFactory<pg.Pool>("@auth/pg-adapter", "default");
    const ids = await fill(PostgresAdapter(pool), true);
    Object.assign(pgAdapterSource, { db, ids, usersTable: "users", withoutEmail: true });
  }, 60_000);
  sourceTests("@auth/pg-adapter's users/accounts", () => pgAdapterSource);
  it("authjsSource - one query for a page of users, one for their provider links", async () => {
    const statements: string[] = [];
    // Over the same pool, not destroyed here (that would end the pool): the suite's cleanup does.
    const db: AnyKysely = new Kysely({
      dialect: new PostgresDialect({ pool }),
      log: (event) => void statements.push(event.query.sql),
    });
    expect(await rowsOf(db, 2)).toHaveLength(5);
    const reading = (table: string) => statements.filter((text) => text.includes(`from "${table}"`));
    expect(reading("users")).toHaveLength(3);
    expect(reading("accounts")).toHaveLength(3);
    expect(reading("accounts")[0]).toMatch(/"userId" in \(\$\d+, \$\d+\)/);
  });
  importTests(() => pgAdapterSource);
});

/** @auth/kysely-adapter's documented migration on `db`, filled through the adapter's own methods. */
async function fillThroughKyselyAdapter(filled: Filled, db: AnyKysely, mariadb: boolean): Promise<void> {
  await kyselyAdapterMigration(db, mariadb);
  const KyselyAdapter = await adapterFactory<AnyKysely>("@auth/kysely-adapter", "KyselyAdapter");
  const ids = await fill(KyselyAdapter(db), false);
  Object.assign(filled, { db, ids, usersTable: "User", withoutEmail: false });
}

describe("Auth.js with @auth/kysely-adapter on PostgreSQL", () => {
  const filled = {} as Filled;
  beforeAll(async () => {
    const { db } = await postgresSource();
    await fillThroughKyselyAdapter(filled, db, false);
  }, 60_000);
  sourceTests("@auth/kysely-adapter's User/Account", () => filled);
});

describe("Auth.js with @auth/kysely-adapter on MariaDB", () => {
  const filled = {} as Filled;
  beforeAll(async () => {
    const database = await mariadbDatabase();
    if (database === null) throw new Error("no MariaDB server for the Auth.js source");
    const db: AnyKysely = new Kysely({
      dialect: new MysqlDialect({ pool: createPool({ uri: database.url, connectionLimit: 2 }) }),
    });
    cleanups.push(database.drop, () => db.destroy());
    await fillThroughKyselyAdapter(filled, db, true);
  }, 60_000);
  sourceTests("@auth/kysely-adapter's User/Account", () => filled);
});

describe("Auth.js source without Auth.js tables", () => {
  it("authjsSource - a database without Auth.js's tables fails the run, naming what it looked for", async () => {
    const { db } = await postgresSource();
    await sql.raw("create table users (id serial primary key, email text)").execute(db);
    const first = (source: ReturnType<typeof authjsSource>) => source.rows()[Symbol.asyncIterator]().next();
    await expect(first(authjsSource({ db }))).rejects.toThrow(AuthjsSourceError);
    await expect(first(authjsSource({ db }))).rejects.toThrow(/users\/accounts or User\/Account/);
    const named = authjsSource({ db, tables: { users: "people", accounts: "links" } });
    await expect(first(named)).rejects.toThrow(/no table people/);
    expect(() => authjsSource({ db, pageSize: 0 })).toThrow(RangeError);
  });
});

/** The test app's routes on 127.0.0.1:`port`, through the core's HTTP handler (no framework). */
async function listen(auth: Parameters<Parameters<typeof createIdpBoot>[0]["listen"]>[0], port: number) {
  const handler = httpHandlerFor(auth);
  const server = createServer((req, res) => {
    handler.handle(fromNodeRequest(req, { body: req })).then(
      (response) => (response ? writeNodeResponse(res, response) : res.writeHead(404).end()),
      (error: Error) => res.destroy(error),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return { close: () => closeServer(server) };
}

/** What the first import of the pg-adapter's users gives (lines in id order: Alice, Bob, nobody, Carol, Dave). */
const FIRST_RUN = {
  rows: 5,
  imported: 3,
  updated: 0,
  identities: 3,
  skipped: {
    invalid_row: { count: 1, lines: [3] },
    unknown_provider: { count: 1, lines: [5] },
  },
  dryRun: false,
};

/**
 * End to end: the Auth.js users imported into MariaDB (a database of the test's own), then Alice
 * signs in at the test OpenID Connect provider as the subject Auth.js had linked, through the
 * core, and lands on her imported account; a second run changes nothing.
 */
function importTests(source: () => Filled): void {
  const target = {} as { db: AnyKysely };
  beforeAll(async () => {
    const database = await mariadbDatabase();
    if (database === null) throw new Error("no MariaDB server for the import target");
    const opened = await openTarget(database.url);
    cleanups.push(database.drop, opened.close);
    await createSqlStores({ db: opened.db }).migrate();
    target.db = opened.db;
  }, 60_000);

  it("importAccounts - Auth.js users land in Portcullis; a provider sign-in reaches the imported account; a re-run changes nothing", async () => {
    const boot = createIdpBoot({
      name: "authjs import",
      createStores: () => createSqlStores({ db: target.db }) as AuthStores,
      listen,
    });
    const app = await boot();
    // Another address at the provider than in Auth.js: only the imported link can lead to Alice.
    app.provider.setAccount(OIDC_SUBJECT, { email: "alice.elsewhere@example.test", emailVerified: true });
    const run = () =>
      importAccounts({
        source: authjsSource({ db: source().db, pageSize: 2 }),
        target: { db: target.db },
        issuers: { oidc: app.provider.issuer },
      });
    expect(await run()).toEqual(FIRST_RUN);

    const { users, identities } = createSqlStores({ db: target.db });
    const alice = await users.findByEmail("alice@example.test");
    expect(alice).toMatchObject({ emailVerified: true, name: "Alice", passwordHash: null });
    expect(alice?.identityProviders.sort()).toEqual(["github", "oidc"]);
    expect(await users.findByEmail("bob@example.test")).toMatchObject({ emailVerified: false, name: null });
    expect(await users.findByEmail("carol@example.test")).toMatchObject({ emailVerified: true });
    expect(await identities.findBySubject("https://github.com", "1001")).toMatchObject({ userId: alice?.id });
    expect(await identities.findBySubject(app.provider.issuer, OIDC_SUBJECT)).toMatchObject({
      userId: alice?.id,
      provider: "oidc",
    });
    expect(
      await identities.findBySubject("https://accounts.google.com", "117000000000000000001"),
    ).toBeTruthy();
    expect(await users.findByEmail("dave@example.test")).toBeNull();

    const count = async () => (await target.db.selectFrom("portcullis_users").select("id").execute()).length;
    expect(await count()).toBe(3);
    const browser = new TestBrowser(OIDC_SUBJECT);
    const reply = await signIn(app, browser);
    expect(hasSession(reply.setCookies)).toBe(true);
    expect(await userIdOf(app, browser)).toBe(alice?.id);
    expect(await count()).toBe(3);

    const before = await tablesNow(target.db);
    const again = {
      invalid_row: FIRST_RUN.skipped.invalid_row,
      unknown_provider: FIRST_RUN.skipped.unknown_provider,
    };
    expect(await run()).toEqual({
      ...FIRST_RUN,
      imported: 0,
      identities: 0,
      skipped: { ...again, already_imported: { count: 3, lines: [1, 2, 4] } },
    });
    expect(await tablesNow(target.db)).toEqual(before);
  }, 60_000);
}
