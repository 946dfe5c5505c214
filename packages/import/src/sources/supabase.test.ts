import { randomBytes } from "node:crypto";
import { isAuthError } from "@portcullis/core";
import { createSqlStores } from "@portcullis/store-sql";
import { Secret, TOTP } from "otpauth";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plainPostgresDb, postgresDatabase, usePostgres } from "../../../store-sql/src/test-databases.js";
import { runCommand } from "../command.js";
import { importAccounts } from "../import-accounts.js";
import type { AnyKysely } from "../ledger.js";
import { type OpenedTarget, openTarget } from "../open-target.js";
import type { SourceRow } from "../source.js";
import { authOn, tablesNow } from "../test-scenario.js";
import { parseSupabaseDecryptionKeys, supabaseSource } from "./supabase.js";
import {
  createSupabaseAuthSchema,
  fillSupabaseAuth,
  fixtureUserId,
  type SupabaseFixture,
} from "./supabase-schema.js";

/** The host's `twoFactor.encryptionKey`, which the import seals the TOTP secrets under. */
const TWO_FACTOR_KEY = `supabase-import-two-factor-key-${randomBytes(12).toString("hex")}`;

/** A Supabase `auth` schema of the file's own, filled as the auth server would, and a target database. */
interface Setup {
  server: Awaited<ReturnType<typeof usePostgres>>;
  source: Awaited<ReturnType<typeof postgresDatabase>>;
  sourceDb: AnyKysely;
  target: Awaited<ReturnType<typeof postgresDatabase>>;
  opened: OpenedTarget;
  fixture: SupabaseFixture;
}

const setup = {} as Setup;

beforeAll(async () => {
  setup.server = await usePostgres();
  setup.source = await postgresDatabase(setup.server.url);
  const client = new pg.Client({ connectionString: setup.source.url });
  await client.connect();
  try {
    await createSupabaseAuthSchema(client);
    setup.fixture = await fillSupabaseAuth(client);
  } finally {
    await client.end();
  }
  setup.sourceDb = plainPostgresDb(setup.source.url, 2);
  setup.target = await postgresDatabase(setup.server.url);
  setup.opened = await openTarget(setup.target.url);
  await createSqlStores({ db: setup.opened.db }).migrate();
}, 60_000);

afterAll(async () => {
  await setup.sourceDb?.destroy();
  await setup.opened?.close();
  await setup.source?.drop();
  await setup.target?.drop();
  await setup.server?.stop();
});

const keys = () => ({ [setup.fixture.keyId]: setup.fixture.key });

async function rowsOf(options: Partial<Parameters<typeof supabaseSource>[0]> = {}): Promise<SourceRow[]> {
  const rows: SourceRow[] = [];
  for await (const row of supabaseSource({ db: setup.sourceDb, pageSize: 2, ...options }).rows())
    rows.push(row);
  return rows;
}

const withoutDetail = (row: SourceRow) => ("skip" in row ? { line: row.line, skip: row.skip } : row);

describe("supabaseSource", () => {
  it("rows - reads every user in id order across pages, each good one as an account and each other with its reason", async () => {
    const { totp, githubId } = setup.fixture;
    const rows = await rowsOf({ decryptionKeys: keys() });
    expect(rows.map(withoutDetail)).toEqual([
      {
        line: 1,
        account: {
          id: fixtureUserId(1),
          email: "ada@example.test",
          emailVerified: true,
          name: "Ada Lovelace",
          passwordHash: expect.stringMatching(/^\$2a\$10\$.{53}$/),
          identities: [],
          totp: { secret: totp.ada },
        },
      },
      {
        line: 2,
        account: expect.objectContaining({ email: "brendan@example.test", name: "Brendan", totp: null }),
      },
      {
        line: 3,
        account: expect.objectContaining({ emailVerified: false, name: null, totp: { secret: totp.chiara } }),
      },
      {
        line: 4,
        account: expect.objectContaining({
          email: "daniel@example.test",
          passwordHash: null,
          identities: [{ provider: "github", subject: githubId }],
        }),
      },
      { line: 5, skip: "invalid_row" },
      { line: 6, skip: "invalid_row" },
      { line: 7, skip: "invalid_row" },
      { line: 8, skip: "invalid_row" },
      { line: 9, skip: "unknown_provider" },
      { line: 10, skip: "two_factor_unreadable" },
      {
        line: 11,
        account: expect.objectContaining({
          id: fixtureUserId(11),
          passwordHash: expect.stringMatching(/^\$2a\$10\$/),
        }),
      },
    ]);
    expect(rows.map((row) => ("detail" in row ? row.detail : null)).slice(4, 10)).toEqual([
      expect.stringMatching(/^no email: a phone-only user/),
      expect.stringMatching(/^an anonymous user/),
      expect.stringMatching(/^deleted in Supabase at 2025-02-01/),
      expect.stringMatching(/^banned until \d{4}-/),
      expect.stringMatching(/^a SAML SSO user \(sso:7d1a2b3c-.*docs\/sso\.md/),
      expect.stringMatching(/^a verified webauthn factor and no TOTP/),
    ]);
  });

  it("rows - without the column encryption key, a sealed password or TOTP secret is a skip naming the key id", async () => {
    const { keyId } = setup.fixture;
    const rows = await rowsOf({ pageSize: 1000 });
    expect(rows[2]).toEqual({
      line: 3,
      skip: "two_factor_unreadable",
      detail: expect.stringContaining(`encrypted with Supabase key id ${keyId}: pass its key`),
    });
    expect(rows[10]).toEqual({
      line: 11,
      skip: "unverifiable_hash",
      detail: expect.stringContaining(`encrypted with Supabase key id ${keyId}`),
    });
    const wrongKey = await rowsOf({ decryptionKeys: { [keyId]: randomBytes(32).toString("base64url") } });
    expect(wrongKey[2]).toMatchObject({ skip: "two_factor_unreadable", detail: /does not decrypt/ });
    expect(rows.filter((row) => "account" in row)).toHaveLength(3);
  });

  it("rows - a page size of one reads the same rows as one page of all", async () => {
    const one = await rowsOf({ pageSize: 1, decryptionKeys: keys() });
    const all = await rowsOf({ pageSize: 1000, decryptionKeys: keys() });
    expect(one.map(withoutDetail)).toEqual(all.map(withoutDetail));
    expect(all).toHaveLength(11);
    expect(() => supabaseSource({ db: setup.sourceDb, pageSize: 0 })).toThrow(/pageSize/);
  });

  it("parseSupabaseDecryptionKeys - reads the auth server's key list and names a bad pair without its key", () => {
    const key = randomBytes(32).toString("base64url");
    const other = randomBytes(32).toString("base64url");
    expect(parseSupabaseDecryptionKeys(`old:${key}, new:${other}`)).toEqual({ old: key, new: other });
    expect(() => parseSupabaseDecryptionKeys(`old:${key.slice(1)}`)).toThrow(
      /^Supabase decryption key old: /,
    );
    expect(() => parseSupabaseDecryptionKeys(key)).toThrow(/has no key id/);
  });
});

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    (result) =>
      (result as { twoFactorRequired?: boolean }).twoFactorRequired ? "second factor" : "signed in",
    (error: unknown) => (isAuthError(error) ? error.code : String(error)),
  );

const importFromSupabase = (dryRun = false) =>
  importAccounts({
    source: supabaseSource({ db: setup.sourceDb, pageSize: 2, decryptionKeys: keys() }),
    target: { db: setup.opened.db },
    twoFactorKey: TWO_FACTOR_KEY,
    dryRun,
  });

const FIRST_RUN = {
  rows: 11,
  imported: 5,
  updated: 0,
  identities: 1,
  skipped: {
    invalid_row: { count: 4, lines: [5, 6, 7, 8] },
    unknown_provider: { count: 1, lines: [9] },
    two_factor_unreadable: { count: 1, lines: [10] },
  },
};

describe("supabaseSource into Portcullis", () => {
  it("importAccounts - imports the users that can sign in, with their names, links and verified addresses", async () => {
    expect(await importFromSupabase(true)).toEqual({ ...FIRST_RUN, dryRun: true });
    expect(await importFromSupabase()).toEqual({ ...FIRST_RUN, dryRun: false });
    const { users, identities } = createSqlStores({ db: setup.opened.db });
    expect(await users.findByEmail("ada@example.test")).toMatchObject({
      emailVerified: true,
      name: "Ada Lovelace",
      twoFactor: { methods: ["totp"], preferredMethod: "totp" },
    });
    expect(await users.findByEmail("chiara@example.test")).toMatchObject({ emailVerified: false });
    expect(await users.findByEmail("brendan@example.test")).toMatchObject({
      twoFactor: { methods: [] },
    });
    for (const email of ["mallory@example.test", "erin@example.test", "frank@corp.example.test"])
      expect(await users.findByEmail(email)).toBeNull();
    const daniel = await users.findByEmail("daniel@example.test");
    expect(daniel).toMatchObject({ passwordHash: null, identityProviders: ["github"] });
    expect(await identities.findBySubject("https://github.com", setup.fixture.githubId)).toMatchObject({
      userId: daniel?.id,
      provider: "github",
    });
  });

  it("importAccounts - every imported user signs in with the Supabase password, TOTP users with a code of the old secret", async () => {
    const auth = authOn(setup.opened.db, TWO_FACTOR_KEY);
    const { passwords, totp } = setup.fixture;
    const login = (email: string, password: string) => auth.login({}, { email, password });
    expect(await outcome(login("brendan@example.test", passwords.brendan))).toBe("signed in");
    expect(await outcome(login("gustav@example.test", passwords.gustav))).toBe("signed in");
    expect(await outcome(login("ada@example.test", passwords.brendan))).toBe("INVALID_CREDENTIALS");
    for (const [email, password, secret] of [
      ["ada@example.test", passwords.ada, totp.ada],
      ["chiara@example.test", passwords.chiara, totp.chiara],
    ] as const) {
      const first = await login(email, password);
      if (!first.twoFactorRequired) throw new Error(`${email}: expected a second factor`);
      const token = first.twoFactorAuthenticationToken;
      const wrong = String((Number(codeOf(secret)) + 1) % 1_000_000).padStart(6, "0");
      expect(await outcome(auth.completeTwoFactorLogin({ token }, { code: wrong }))).toBe(
        "WRONG_TWO_FACTOR_CODE",
      );
      expect(await outcome(auth.completeTwoFactorLogin({ token }, { code: codeOf(secret) }))).toBe(
        "signed in",
      );
    }
  });

  it("importAccounts - a second run changes nothing", async () => {
    const before = await tablesNow(setup.opened.db);
    expect(await importFromSupabase()).toEqual({
      ...FIRST_RUN,
      imported: 0,
      identities: 0,
      skipped: { ...FIRST_RUN.skipped, already_imported: { count: 5, lines: [1, 2, 3, 4, 11] } },
      dryRun: false,
    });
    expect(await tablesNow(setup.opened.db)).toEqual(before);
  });

  it("portcullis import --from supabase - reads the project's database by its URL, keys from the environment", async () => {
    const before = await tablesNow(setup.opened.db);
    const output = { stdout: "", stderr: "" };
    const args = ["import", "--from", "supabase", "--source", setup.source.url, "--target", setup.target.url];
    const code = await runCommand(
      [...args, "--dry-run"],
      {
        stdout: (text) => {
          output.stdout += text;
        },
        stderr: (text) => {
          output.stderr += text;
        },
      },
      {
        GOTRUE_SECURITY_DB_ENCRYPTION_DECRYPTION_KEYS: `${setup.fixture.keyId}:${setup.fixture.key}`,
        AUTH_TWO_FACTOR_KEY: TWO_FACTOR_KEY,
      },
    );
    expect(output).toMatchObject({ stderr: "done: 11 rows, 0 imported, 11 skipped\n" });
    expect(code).toBe(0);
    expect(output.stdout).toContain("dry run: 11 rows read, would import 0 accounts");
    expect(output.stdout).toContain("skipped already_imported: 5 (lines 1, 2, 3, 4, 11)");
    expect(await tablesNow(setup.opened.db)).toEqual(before);
    let refusal = "";
    const refused = {
      stdout: () => {},
      stderr: (text: string) => {
        refusal += text;
      },
    };
    expect(await runCommand([...args.slice(0, 4), "sqlite:x.db", ...args.slice(5)], refused, {})).toBe(2);
    expect(refusal).toContain("postgres:// connection string");
  });
});

/** The current code of a base32 TOTP secret, as the user's authenticator app shows it. */
const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate();
