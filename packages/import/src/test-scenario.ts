import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuthStores, createArgon2Hasher, createAuth, isAuthError, silentLogger } from "@portcullis/core";
import { createSqlStores } from "@portcullis/store-sql";
import { referenceTotp } from "@portcullis/testing";
import bcrypt from "bcryptjs";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgres } from "../../store-sql/src/test-databases.js";
import { useMysql } from "../../store-sql/src/test-mysql.js";
import { importAccounts } from "./import-accounts.js";
import { jsonlSource } from "./jsonl-source.js";
import type { AnyKysely } from "./ledger.js";
import { openTarget } from "./open-target.js";
import type { ImportSummary } from "./summary.js";

/** Test support (not part of the package's exports): one import scenario, run on each SQL dialect. */

const ALICE_PASSWORD = "alice's old password";
/** A Better Auth hash made by Better Auth itself (core's imported-hashes.test.ts has its origin). */
const BOB_PASSWORD = "correct horse battery staple";
const BOB_HASH =
  "7d340bb7a28c3402502982b051f44083:f7a6b0bf3e42cd2211c631ce94936d161f15ddb028a8f03641b15baee960e7417c812acce09208888c0aa20bf1f76a8c1a2f653b1e235ac6bbd1b07af1466aa7";
const CAROL_PASSWORD = "carol's argon2 password";
export const OKTA = "https://example.okta.test";
/** Grace's TOTP secret and recovery codes in the old system (base32, in the clear). */
const GRACE_TOTP = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
const GRACE_CODES = ["abcde-23456", "fghjk-34567"];
const GRACE_PASSWORD = "grace's old password";
/** The key the host seals TOTP secrets with (`twoFactor.encryptionKey`). */
export const TWO_FACTOR_KEY = "import-scenario-two-factor-key-Qm3Zt8WcVb2Kx9";

/** The file's lines, good and bad; the comments give the line numbers the summary must name. */
export async function scenarioLines(): Promise<string[]> {
  const cheapArgon2 = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
  return [
    // 1: bcrypt (made by bcryptjs), a GitHub link.
    JSON.stringify({
      id: "u1",
      email: "alice@example.test",
      emailVerified: true,
      name: "Alice",
      passwordHash: bcrypt.hashSync(ALICE_PASSWORD, 4),
      identities: [{ provider: "github", subject: 1001 }],
    }),
    // 2: Better Auth's scrypt, an address to normalize.
    JSON.stringify({ id: "u2", email: "  Bob@EXAMPLE.test ", passwordHash: BOB_HASH }),
    // 3: not JSON.
    '{"id": "u3", "email": ',
    // 4: no email.
    JSON.stringify({ id: "u4", name: "Nobody" }),
    // 5: Bob's address again after normalization.
    JSON.stringify({ id: "u5", email: "bob@example.test" }),
    // 6: a hash the core cannot verify.
    JSON.stringify({ id: "u6", email: "eve@example.test", passwordHash: "$2b$04$tooshort" }),
    // 7: argon2id, and a provider whose issuer the import's options give.
    JSON.stringify({
      id: 7,
      email: "carol@example.test",
      passwordHash: await cheapArgon2.hash(CAROL_PASSWORD),
      identities: [{ provider: "okta", subject: "00u7" }],
    }),
    // 8: a provider of no known issuer.
    JSON.stringify({
      id: "u8",
      email: "dave@example.test",
      identities: [{ provider: "gitlab", subject: "8" }],
    }),
    // 9: an account the target had before the import.
    JSON.stringify({ id: "u9", email: "Existing@example.test", passwordHash: BOB_HASH }),
    // 10: Alice's GitHub identity on another account.
    JSON.stringify({
      id: "u10",
      email: "frank@example.test",
      identities: [{ provider: "github", subject: "1001" }],
    }),
    // 11: TOTP with recovery codes and a passkey.
    JSON.stringify({
      id: "u11",
      email: "grace@example.test",
      passwordHash: bcrypt.hashSync(GRACE_PASSWORD, 4),
      totpSecret: GRACE_TOTP,
      recoveryCodes: GRACE_CODES,
      passkeys: [
        { id: "Z3JhY2UtcGFzc2tleQ", publicKey: "cHVibGljLWtleQ", counter: 3, transports: ["internal"] },
      ],
    }),
    // 12: a TOTP secret of 40 bits.
    JSON.stringify({ id: "u12", email: "heidi@example.test", totpSecret: "JBSWY3DP" }),
    // 13: Grace's passkey on another account.
    JSON.stringify({
      id: "u13",
      email: "ivan@example.test",
      passkeys: [{ id: "Z3JhY2UtcGFzc2tleQ", publicKey: "b3RoZXI", counter: 0 }],
    }),
    "",
  ];
}

/** What the file above must give, whether it is imported or dry-run, on the first run. */
export const FIRST_RUN = {
  rows: 13,
  imported: 4,
  updated: 0,
  identities: 2,
  skipped: {
    invalid_json: { count: 1, lines: [3] },
    invalid_row: { count: 1, lines: [4] },
    duplicate_email: { count: 1, lines: [5] },
    unverifiable_hash: { count: 1, lines: [6] },
    unknown_provider: { count: 1, lines: [8] },
    email_taken: { count: 1, lines: [9] },
    identity_taken: { count: 1, lines: [10] },
    invalid_two_factor: { count: 1, lines: [12] },
    passkey_taken: { count: 1, lines: [13] },
  },
};

/** Every row of the tables an import writes, in a stable order: what "changes nothing" compares. */
export async function tablesNow(db: AnyKysely, withLedger = true): Promise<unknown[]> {
  const read = (table: string, order: string) => db.selectFrom(table).selectAll().orderBy(order).execute();
  return [
    await read("portcullis_users", "id"),
    await read("portcullis_identities", "subject"),
    await read("portcullis_passkeys", "id"),
    ...(withLedger ? [await read("portcullis_import_ledger", "source_id")] : []),
  ];
}

/**
 * Portcullis over an import's target, as the new host would configure it (cheap argon2: these
 * tests are not about hashing): TOTP sealed under `twoFactorKey`, `extra` options on top.
 */
export function authOn(
  db: AnyKysely,
  twoFactorKey = TWO_FACTOR_KEY,
  extra: { appOrigin?: string; webauthn?: { rpId: string } } = {},
) {
  return createAuth({
    secret: "import-scenario-secret-Vb4kQ9xTz2Lm7RwHc8NdJ3FpGs6YeUa",
    stores: createSqlStores({ db }) as AuthStores,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
    twoFactor: { encryptionKey: twoFactorKey },
    ...extra,
  });
}

/** "signed in", or the AuthError's code a sign-in step rejected with. */
export const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "signed in",
    (error: unknown) => (isAuthError(error) ? error.code : String(error)),
  );

/** Runs one statement (a `create database`, a `drop database`) on a PostgreSQL server. */
async function pgAdmin(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs one statement (a `create database`, a `drop database`) on a MariaDB server. */
async function mysqlAdmin(url: string, statement: string): Promise<void> {
  const admin = await createConnection({ uri: url });
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * A shared test server of store-sql's (`use()`: its URL, and how to stop it when the test started
 * it), the statement runner that creates and drops a database on it, and what the drop adds.
 */
export interface DatabaseServer {
  name: string;
  use: () => Promise<{ url: string; stop(): Promise<void> } | null>;
  admin: (url: string, statement: string) => Promise<void>;
  dropSuffix: string;
}

/** PostgreSQL: PG_URL, else 127.0.0.1:5432, else one started here. */
export const POSTGRES: DatabaseServer = {
  name: "PostgreSQL",
  use: usePostgres,
  admin: pgAdmin,
  dropSuffix: " with (force)",
};
/** MariaDB: MYSQL_URL, else root on 127.0.0.1:3306, else one started here. */
export const MARIADB: DatabaseServer = { name: "MariaDB", use: useMysql, admin: mysqlAdmin, dropSuffix: "" };

/** A database of a test's own on a test server: its URL, and `remove` (drops it, stops the server). */
export interface OwnDatabase {
  url: string;
  remove(): Promise<void>;
}

/** Creates a database named `<prefix>_<random>` on `server` (`remove` drops it and stops the server). */
export async function ownDatabase(server: DatabaseServer, prefix: string): Promise<OwnDatabase> {
  const running = await server.use();
  if (running === null) throw new Error(`no ${server.name} server for the test`);
  const database = `${prefix}_${randomBytes(6).toString("hex")}`;
  await server.admin(running.url, `create database ${database}`);
  const url = new URL(running.url);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async remove() {
      await server.admin(running.url, `drop database if exists ${database}${server.dropSuffix}`);
      await running.stop();
    },
  };
}

/** The database of one scenario and the run of its file, once `beforeAll` has set them. */
interface Scenario {
  db: AnyKysely;
  close(): Promise<void>;
  dir: string;
  file: string;
  /** The file's lines, as written (its hashes are made once). */
  lines: string[];
}

const runOn = (scenario: Scenario, dryRun: boolean): Promise<ImportSummary> =>
  importAccounts({
    source: jsonlSource(scenario.file),
    target: { db: scenario.db },
    dryRun,
    issuers: { okta: OKTA },
    twoFactorKey: TWO_FACTOR_KEY,
  });

/**
 * The import scenario on a database `open` gives (migrated, with no accounts): a dry run writes
 * nothing, the import gives the summary above, every imported user signs in with the old
 * password through the core, the links find their accounts, a second run changes nothing.
 */
export function runImportScenario(
  name: string,
  open: () => Promise<{ db: AnyKysely; close(): Promise<void> }>,
): void {
  describe(`import on ${name}`, () => {
    const scenario = {} as Scenario;
    beforeAll(async () => {
      Object.assign(scenario, await open());
      scenario.dir = await mkdtemp(join(tmpdir(), "portcullis-import-"));
      scenario.file = join(scenario.dir, "users.jsonl");
      scenario.lines = await scenarioLines();
      await writeFile(scenario.file, scenario.lines.join("\n"));
      await authOn(scenario.db).register(
        {},
        { email: "existing@example.test", password: "the existing account's password" },
      );
    }, 60_000);
    afterAll(async () => {
      await scenario.close?.();
      if (scenario.dir) await rm(scenario.dir, { recursive: true, force: true });
    });
    importTests(scenario);
    afterImportTests(scenario);
    upsertTests(scenario);
  });
}

function importTests(scenario: Scenario): void {
  it("importAccounts - a dry run reports what the import would do and writes nothing", async () => {
    const { db } = scenario;
    const before = await tablesNow(db, false);
    expect(await runOn(scenario, true)).toEqual({ ...FIRST_RUN, dryRun: true });
    expect(await tablesNow(db, false)).toEqual(before);
    expect(await createSqlStores({ db }).users.findByEmail("alice@example.test")).toBeNull();
    expect(await db.introspection.getTables()).not.toContainEqual(
      expect.objectContaining({ name: "portcullis_import_ledger" }),
    );
  });

  it("importAccounts - imports the good rows, skips each bad one with its line and reason, half-writes nothing", async () => {
    expect(await runOn(scenario, false)).toEqual({ ...FIRST_RUN, dryRun: false });
    const { users } = createSqlStores({ db: scenario.db });
    // Frank's account was created, then its link was refused: the transaction took both back.
    expect(await users.findByEmail("frank@example.test")).toBeNull();
    expect(await users.findByEmail("eve@example.test")).toBeNull();
    const alice = await users.findByEmail("alice@example.test");
    expect(alice).toMatchObject({ emailVerified: true, name: "Alice", identityProviders: ["github"] });
    expect(await users.findByEmail("bob@example.test")).toMatchObject({ emailVerified: false, name: null });
  });
}

function afterImportTests(scenario: Scenario): void {
  it("importAccounts - each imported user signs in with the old password through the core", async () => {
    const auth = authOn(scenario.db);
    const login = (email: string, password: string) => codeOf(auth.login({}, { email, password }));
    expect(await login("alice@example.test", ALICE_PASSWORD)).toBe("signed in");
    expect(await login("Bob@example.test", BOB_PASSWORD)).toBe("signed in");
    expect(await login("carol@example.test", CAROL_PASSWORD)).toBe("signed in");
    expect(await login("alice@example.test", BOB_PASSWORD)).toBe("INVALID_CREDENTIALS");
  });

  it("importAccounts - the TOTP secret and recovery codes of the old system pass the core's 2FA", async () => {
    const auth = authOn(scenario.db);
    const secondFactor = async () => {
      const first = await auth.login({}, { email: "grace@example.test", password: GRACE_PASSWORD });
      if (!first.twoFactorRequired) throw new Error("expected 2FA");
      return { token: first.twoFactorAuthenticationToken };
    };
    const code = referenceTotp(GRACE_TOTP, Date.now());
    expect(await codeOf(auth.completeTwoFactorLogin(await secondFactor(), { code }))).toBe("signed in");
    expect(await codeOf(auth.recoverWithRecoveryCode(await secondFactor(), { code: "ABCDE23456" }))).toBe(
      "signed in",
    );
    const grace = await createSqlStores({ db: scenario.db }).users.findByEmail("grace@example.test");
    expect(grace?.twoFactor).toMatchObject({ methods: ["totp"], preferredMethod: "totp" });
    expect(JSON.stringify(grace)).not.toContain(GRACE_TOTP);
    expect(await createSqlStores({ db: scenario.db }).passkeys.listByUser(grace?.id ?? "")).toMatchObject([
      { id: "Z3JhY2UtcGFzc2tleQ", publicKey: "cHVibGljLWtleQ", counter: 3, transports: ["internal"] },
    ]);
  });

  it("importAccounts - an account with TOTP is skipped, never imported without it, when no two-factor key is given", async () => {
    const summary = await importAccounts({
      source: jsonlSource(scenario.file, { name: "without-key" }),
      target: { db: scenario.db },
      dryRun: true,
    });
    expect(summary.skipped.two_factor_unreadable).toEqual({ count: 1, lines: [11] });
  });

  it("importAccounts - a provider link finds its account by issuer and subject", async () => {
    const { users, identities } = createSqlStores({ db: scenario.db });
    const alice = await users.findByEmail("alice@example.test");
    const carol = await users.findByEmail("carol@example.test");
    expect(await identities.findBySubject("https://github.com", "1001")).toMatchObject({
      userId: alice?.id,
      provider: "github",
    });
    expect(await identities.findBySubject(OKTA, "00u7")).toMatchObject({
      userId: carol?.id,
      provider: "okta",
    });
  });

  it("importAccounts - a second run, and a dry run after it, change nothing", async () => {
    const before = await tablesNow(scenario.db);
    const again = { ...FIRST_RUN.skipped, already_imported: { count: 4, lines: [1, 2, 7, 11] } };
    const expected = { ...FIRST_RUN, imported: 0, identities: 0, skipped: again };
    expect(await runOn(scenario, false)).toEqual({ ...expected, dryRun: false });
    expect(await runOn(scenario, true)).toEqual({ ...expected, dryRun: true });
    expect(await tablesNow(scenario.db)).toEqual(before);
  });
}

const BOB_NEW_PASSWORD = "bob's password, changed in the old system";
const CAROL_PORTCULLIS_PASSWORD = "carol's password, set in Portcullis";
/** The TOTP Alice turned on in the old system after the first run. */
const ALICE_TOTP = "KRUGKIDROVUWG2ZAMJZG653OEBTG66BAJJ2W24DT";

/** The scenario's file with four imported rows changed; written under the same name, so the ledger takes it for the same source. */
async function changedFile(scenario: Scenario): Promise<string> {
  const change = (line: number, fields: Record<string, unknown>) => {
    const row = JSON.parse(scenario.lines[line - 1] ?? "{}") as Record<string, unknown>;
    return JSON.stringify({ ...row, ...fields });
  };
  const lines = [...scenario.lines];
  lines[0] = change(1, {
    name: "Alice Liddell",
    totpSecret: ALICE_TOTP,
    identities: [
      { provider: "github", subject: 1001 },
      { provider: "okta", subject: "00u1" },
    ],
  });
  lines[1] = change(2, { email: "Robert@example.test", passwordHash: bcrypt.hashSync(BOB_NEW_PASSWORD, 4) });
  lines[6] = change(7, {
    emailVerified: true,
    passwordHash: bcrypt.hashSync("carol's old-system change", 4),
  });
  lines[10] = change(11, { email: "existing@example.test" });
  const dir = join(scenario.dir, "changed");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "users.jsonl"), lines.join("\n"));
  return join(dir, "users.jsonl");
}

function upsertTests(scenario: Scenario): void {
  it("importAccounts - changed rows update their accounts (dry run first); a password set or rehashed in Portcullis since wins", async () => {
    const { db } = scenario;
    const { users } = createSqlStores({ db });
    const carol = await users.findByEmail("carol@example.test");
    const cheap = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
    await users.update(carol?.id ?? "", { passwordHash: await cheap.hash(CAROL_PORTCULLIS_PASSWORD) });
    const file = await changedFile(scenario);
    const before = await tablesNow(db);
    const skipped = { ...FIRST_RUN.skipped, email_taken: { count: 2, lines: [9, 11] } };
    const expected = { ...FIRST_RUN, imported: 0, updated: 3, identities: 1, skipped };
    const changed = { ...scenario, file };
    expect(await runOn(changed, true)).toEqual({ ...expected, dryRun: true });
    expect(await tablesNow(db)).toEqual(before);
    expect(await runOn(changed, false)).toEqual({ ...expected, dryRun: false });
    const auth = authOn(db);
    const login = (email: string, password: string) => codeOf(auth.login({}, { email, password }));
    // Bob signed in above, so the core replaced his imported hash with argon2id: the import's
    // compare-and-set finds another hash and leaves it (batch.test.ts has a hash replaced).
    expect(await login("robert@example.test", BOB_PASSWORD)).toBe("signed in");
    expect(await login("robert@example.test", BOB_NEW_PASSWORD)).toBe("INVALID_CREDENTIALS");
    expect(await users.findByEmail("bob@example.test")).toBeNull();
    expect(await login("carol@example.test", CAROL_PORTCULLIS_PASSWORD)).toBe("signed in");
    expect(await users.findByEmail("carol@example.test")).toMatchObject({ emailVerified: true });
    const alice = await users.findByEmail("alice@example.test");
    expect(alice).toMatchObject({ name: "Alice Liddell", identityProviders: ["github", "okta"] });
    expect(await createSqlStores({ db }).identities.findBySubject(OKTA, "00u1")).toMatchObject({
      userId: alice?.id,
    });
    expect(alice?.twoFactor).toMatchObject({ methods: ["totp"], preferredMethod: "totp" });
    const first = await auth.login({}, { email: "alice@example.test", password: ALICE_PASSWORD });
    if (!first.twoFactorRequired) throw new Error("Alice's TOTP from the old system was not carried over");
    const code = referenceTotp(ALICE_TOTP, Date.now());
    expect(
      await codeOf(auth.completeTwoFactorLogin({ token: first.twoFactorAuthenticationToken }, { code })),
    ).toBe("signed in");
    expect(await users.findByEmail("grace@example.test")).not.toBeNull();
    // A third run: the updated rows are in the ledger as they are now; Grace's still is not, and
    // line 5 (Bob's old address, now free) is imported. A fourth changes nothing.
    const { duplicate_email: _, ...rest } = skipped;
    const third = { ...rest, already_imported: { count: 3, lines: [1, 2, 7] } };
    expect(await runOn(changed, false)).toEqual({
      ...FIRST_RUN,
      imported: 1,
      identities: 0,
      skipped: third,
      dryRun: false,
    });
    const after = await tablesNow(db);
    const fourth = await runOn(changed, false);
    expect(fourth).toMatchObject({ imported: 0, updated: 0, skipped: { already_imported: { count: 4 } } });
    expect(await tablesNow(db)).toEqual(after);
  });
}

/** The scenario on a database of the file's own on a shared test server, dropped afterwards. */
export function runImportScenarioOnServer(server: DatabaseServer): void {
  runImportScenario(server.name, async () => {
    const database = await ownDatabase(server, "portcullis_import");
    const target = await openTarget(database.url);
    await createSqlStores({ db: target.db }).migrate();
    return {
      db: target.db,
      async close() {
        await target.close();
        await database.remove();
      },
    };
  });
}
