import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores } from "@portcullis/store-sql";
import { symmetricEncrypt } from "better-auth/crypto";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresDatabase, usePostgres } from "../../../store-sql/src/test-databases.js";
import { importAccounts } from "../import-accounts.js";
import { type OpenedTarget, openTarget } from "../open-target.js";
import type { SourceRow } from "../source.js";
import { authOn, codeOf } from "../test-scenario.js";
import { betterAuthSource, toRow } from "./better-auth.js";
import {
  betterAuthDecrypt,
  betterAuthSecretsFromEnv,
  betterAuthTotpSecret,
  toBase32,
} from "./better-auth-crypto.js";
import {
  BETTER_AUTH_SECRET,
  countingKysely,
  ORIGIN,
  PEOPLE,
  type Seeded,
  seedBetterAuth,
} from "./better-auth-fixture.js";

/** Better Auth's scrypt hash: the salt's 32 hex digits, a colon, the key's 128. */
const SCRYPT_HASH = /^[0-9a-f]{32}:[0-9a-f]{128}$/;
const TWO_FACTOR_KEY = "the new host's two-factor encryption key, Hq7Vw2Ld9Kx4Tz8B";

let server: Awaited<ReturnType<typeof usePostgres>>;
let database: Awaited<ReturnType<typeof postgresDatabase>>;
let reader: ReturnType<typeof countingKysely>;
let seeded: Seeded;

beforeAll(async () => {
  server = await usePostgres();
  database = await postgresDatabase(server.url);
  seeded = await seedBetterAuth(database.url);
  reader = countingKysely(database.url);
}, 60_000);

afterAll(async () => {
  await seeded?.close();
  await reader?.db.destroy();
  await database?.drop();
  await server?.stop();
});

const rowsOf = async (source: ReturnType<typeof betterAuthSource>) => {
  const rows: SourceRow[] = [];
  for await (const row of source.rows()) rows.push(row);
  return rows;
};

/** The rows by the address of their account (or by the skipped user's id). */
const byEmail = (rows: SourceRow[]) =>
  Object.fromEntries(rows.map((row) => ["account" in row ? row.account.email : row.detail, row]));

/** What the source must give for each person, whatever its position. */
function expectedAccounts() {
  const { ids, adaTotpSecret, adaBackupCodes, authenticator } = seeded;
  const plain = (person: keyof typeof PEOPLE) => ({
    id: ids[person],
    email: PEOPLE[person].email,
    emailVerified: false,
    name: PEOPLE[person].name,
    passwordHash: expect.stringMatching(SCRYPT_HASH),
    identities: [],
    totp: null,
    passkeys: [],
  });
  return {
    ada: { ...plain("ada"), totp: { secret: adaTotpSecret, recoveryCodes: adaBackupCodes } },
    ben: {
      ...plain("ben"),
      passkeys: [
        {
          id: authenticator.credentialIds[0],
          publicKey: expect.stringMatching(/^[\w-]+$/),
          // The software authenticator counts its registration as its first use.
          counter: 1,
          transports: ["internal"],
          backupEligible: false,
          backedUp: false,
          name: "Ben's laptop",
          createdAt: expect.any(Number),
        },
      ],
    },
    cy: {
      ...plain("cy"),
      emailVerified: true,
      passwordHash: null,
      identities: [{ provider: "google", subject: PEOPLE.cy.google }],
    },
    dee: { ...plain("dee"), identities: [{ provider: "github", subject: PEOPLE.dee.github }] },
    eli: plain("eli"),
  };
}

describe("betterAuthSource on a database Better Auth made", () => {
  it("betterAuthSource - streams every user once in keyset pages, with its hash, links, TOTP and passkeys", async () => {
    reader.queries.clear();
    const rows = await rowsOf(betterAuthSource({ db: reader.db, secret: BETTER_AUTH_SECRET, pageSize: 2 }));
    expect(rows.map((row) => row.line)).toEqual([1, 2, 3, 4, 5]);
    const accounts = rows.map((row) => ("account" in row ? row.account : row));
    const expected = expectedAccounts();
    expect(accounts).toEqual(expect.arrayContaining(Object.values(expected)));
    expect(accounts).toHaveLength(5);
    // The list of tables once (pg_catalog), then pages of 2, 2 and 1 user: one query each on every
    // table, but twoFactor only for the page with Ada, the one user with 2FA on.
    expect(Object.fromEntries(reader.queries)).toEqual({
      pg_catalog: 1,
      user: 3,
      account: 3,
      passkey: 3,
      twoFactor: 1,
    });
    const ben = accounts.find((account) => "email" in account && account.email === PEOPLE.ben.email);
    const stored = await reader.db.selectFrom("passkey").select("publicKey").executeTakeFirstOrThrow();
    expect(
      Buffer.from(String(ben && "passkeys" in ben && ben.passkeys?.[0]?.publicKey), "base64url"),
    ).toEqual(Buffer.from(String(stored.publicKey), "base64"));
  });

  it("betterAuthSource - the same rows in one page as in pages of one", async () => {
    const one = await rowsOf(betterAuthSource({ db: reader.db, secret: BETTER_AUTH_SECRET, pageSize: 1 }));
    const all = await rowsOf(betterAuthSource({ db: reader.db, secret: BETTER_AUTH_SECRET }));
    expect(one).toEqual(all);
    expect(new Set(all.map((row) => "account" in row && row.account.id)).size).toBe(5);
  });

  it("betterAuthSource - without the secret, or with a wrong one, only the user with 2FA is skipped", async () => {
    for (const secret of [undefined, "not the Better Auth secret of the old app, 123456"]) {
      const rows = byEmail(
        await rowsOf(betterAuthSource({ db: reader.db, pageSize: 2, ...(secret ? { secret } : {}) })),
      );
      const expected = expectedAccounts();
      const skipped = Object.values(rows).filter((row) => "skip" in row);
      expect(skipped).toEqual([
        {
          line: expect.any(Number),
          skip: "two_factor_unreadable",
          detail: expect.stringContaining(`user ${seeded.ids.ada}: `),
        },
      ]);
      for (const person of ["ben", "cy", "dee", "eli"] as const)
        expect(rows[PEOPLE[person].email]).toEqual({ line: expect.any(Number), account: expected[person] });
    }
  });

  it("betterAuthSource - versioned secrets: the one that opens the data is found among several", async () => {
    const keys = new Map([
      [2, "Better Auth's current secret, version 2, 0123456789"],
      [1, "Better Auth's retired secret, version 1, 9876543210"],
    ]);
    const sealed = await symmetricEncrypt({
      key: { keys, currentVersion: 2, legacySecret: undefined },
      data: "base32:jbsw y3dp ehpk 3pxp",
    });
    expect(sealed).toMatch(/^\$ba\$2\$[0-9a-f]+$/);
    expect(betterAuthDecrypt(sealed, [keys.get(1) ?? "", keys.get(2) ?? ""])).toBe(
      "base32:jbsw y3dp ehpk 3pxp",
    );
    expect(betterAuthDecrypt(sealed, [keys.get(1) ?? ""])).toBeNull();
    expect(betterAuthTotpSecret("base32:jbsw y3dp ehpk 3pxp")).toBe("JBSWY3DPEHPK3PXP");
    // A secret Better Auth made is text: the HMAC key is its UTF-8 bytes.
    expect(betterAuthTotpSecret("Hello!\u00de\u00ad")).toBe(
      new OTPAuth.Secret({ buffer: new TextEncoder().encode("Hello!\u00de\u00ad").buffer }).base32,
    );
    expect(toBase32(new Uint8Array([0xff]))).toBe("74");
  });

  it("betterAuthSecretsFromEnv - the rotation list's secrets, then the one from before it", () => {
    const env = { BETTER_AUTH_SECRETS: " 2:new-secret, 1:old:secret ", BETTER_AUTH_SECRET: "legacy" };
    expect(betterAuthSecretsFromEnv(env)).toEqual(["new-secret", "old:secret", "legacy"]);
    expect(betterAuthSecretsFromEnv({ AUTH_SECRET: "only" })).toEqual(["only"]);
    expect(betterAuthSecretsFromEnv({})).toEqual([]);
    expect(() => betterAuthSecretsFromEnv({ BETTER_AUTH_SECRETS: "2:new,oops" })).toThrow(
      "BETTER_AUTH_SECRETS entry 2 is not <version>:<secret>",
    );
  });

  it("betterAuthSource - a user the admin plugin banned is skipped until the ban is over", () => {
    const relations = { accounts: new Map(), twoFactors: new Map(), passkeys: new Map() };
    const user = { id: "u3", email: "u3@example.test", banned: true };
    expect(toRow(user, relations, [], 3)).toEqual({
      line: 3,
      skip: "invalid_row",
      detail: "user u3: banned (the admin plugin): import it once the ban is lifted or over",
    });
    const later = new Date(Date.now() + 86_400_000);
    expect(toRow({ ...user, banExpires: later }, relations, [], 3)).toMatchObject({
      detail: `user u3: banned until ${later.toISOString()} (the admin plugin): import it once the ban is lifted or over`,
    });
    const over = toRow({ ...user, banned: 1, banExpires: Date.now() - 1000 }, relations, [], 3);
    expect(over).toMatchObject({ account: { id: "u3", email: "u3@example.test" } });
    expect(toRow({ ...user, banned: false }, relations, [], 3)).toMatchObject({ account: { id: "u3" } });
  });

  it("betterAuthSource - a user row without an email, or with an unreadable passkey, is an invalid row", () => {
    const relations = { accounts: new Map(), twoFactors: new Map(), passkeys: new Map() };
    expect(toRow({ id: "u1", email: null, name: "No address" }, relations, [], 7)).toEqual({
      line: 7,
      skip: "invalid_row",
      detail: "user u1: no email",
    });
    const broken = new Map([["u2", [{ id: "p1", userId: "u2", credentialID: "abc", publicKey: null }]]]);
    expect(toRow({ id: "u2", email: "u2@example.test" }, { ...relations, passkeys: broken }, [], 8)).toEqual({
      line: 8,
      skip: "invalid_row",
      detail: "user u2: passkey p1 has no credential id or public key",
    });
  });
});

/** Portcullis over the imported SQLite file, as the new host would configure it. */
const newHost = (target: OpenedTarget) =>
  authOn(target.db, TWO_FACTOR_KEY, { appOrigin: ORIGIN, webauthn: { rpId: "localhost" } });

describe("betterAuthSource, imported into SQLite: the old credentials work on Portcullis", () => {
  let dir: string;
  let target: OpenedTarget;
  const run = () =>
    importAccounts({
      source: betterAuthSource({ db: reader.db, secret: BETTER_AUTH_SECRET, pageSize: 2 }),
      target: { db: target.db },
      twoFactorKey: TWO_FACTOR_KEY,
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-import-better-auth-"));
    target = await openTarget(`sqlite:${join(dir, "target.db")}`);
    await createSqlStores({ db: target.db }).migrate();
  });

  afterAll(async () => {
    await target?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("importAccounts - imports every Better Auth user with its links", async () => {
    expect(await run()).toEqual({
      rows: 5,
      imported: 5,
      updated: 0,
      identities: 2,
      skipped: {},
      dryRun: false,
    });
  });

  it("importAccounts - a second run changes nothing: every user is already imported", async () => {
    const read = (table: string) => target.db.selectFrom(table).selectAll().orderBy("id").execute();
    const before = [await read("portcullis_users"), await read("portcullis_passkeys")];
    expect(await run()).toEqual({
      rows: 5,
      imported: 0,
      updated: 0,
      identities: 0,
      skipped: { already_imported: { count: 5, lines: [1, 2, 3, 4, 5] } },
      dryRun: false,
    });
    expect([await read("portcullis_users"), await read("portcullis_passkeys")]).toEqual(before);
  });

  it("importAccounts - a password changed in Better Auth before the switch is carried over by the next run", async () => {
    const newPassword = "eli's password, changed during the cut-over";
    await seeded.changeEliPassword(newPassword);
    const summary = await run();
    expect(summary).toMatchObject({ rows: 5, imported: 0, updated: 1 });
    expect(summary.skipped).toEqual({ already_imported: { count: 4, lines: expect.any(Array) } });
    // Before anyone signs in on Portcullis (the first sign-in replaces the imported hash with
    // argon2id, and a password Portcullis holds is never overwritten by a re-run).
    const auth = newHost(target);
    const login = (password: string) => codeOf(auth.login({}, { email: PEOPLE.eli.email, password }));
    expect(await login(PEOPLE.eli.password)).toBe("INVALID_CREDENTIALS");
    expect(await login(newPassword)).toBe("signed in");
  });
  it("importAccounts - the users sign in with their Better Auth passwords; Ada's 2FA takes the old TOTP", async () => {
    const auth = newHost(target);
    for (const person of ["ben", "dee"] as const) {
      const { email, password } = PEOPLE[person];
      expect(await codeOf(auth.login({}, { email, password }))).toBe("signed in");
    }
    const secondFactor = async () => {
      const first = await auth.login({}, { email: PEOPLE.ada.email, password: PEOPLE.ada.password });
      if (!first.twoFactorRequired) throw new Error("Ada's account lost its 2FA");
      return { token: first.twoFactorAuthenticationToken };
    };
    const oldTotp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(seeded.adaTotpSecret) });
    expect(
      await codeOf(auth.completeTwoFactorLogin(await secondFactor(), { code: oldTotp.generate() })),
    ).toBe("signed in");
    const backupCode = seeded.adaBackupCodes[0] ?? "";
    expect(await codeOf(auth.recoverWithRecoveryCode(await secondFactor(), { code: backupCode }))).toBe(
      "signed in",
    );
    expect(await codeOf(auth.recoverWithRecoveryCode(await secondFactor(), { code: backupCode }))).toBe(
      "WRONG_TWO_FACTOR_CODE",
    );
  });

  it("importAccounts - Ben's passkey signs in with the same authenticator", async () => {
    const auth = newHost(target);
    const start = await auth.passkeys.signInOptions({}, { email: PEOPLE.ben.email });
    const response = seeded.authenticator.authenticate(start.options as never);
    const result = await auth.passkeys.signIn({ token: start.browserBinding }, { response });
    expect(result.user.email).toBe(PEOPLE.ben.email);
  });

  it("importAccounts - the OAuth accounts find their users by issuer and subject", async () => {
    const { users, identities } = createSqlStores({ db: target.db });
    const cy = await users.findByEmail(PEOPLE.cy.email);
    const dee = await users.findByEmail(PEOPLE.dee.email);
    expect(await identities.findBySubject("https://accounts.google.com", PEOPLE.cy.google)).toMatchObject({
      userId: cy?.id,
      provider: "google",
    });
    expect(await identities.findBySubject("https://github.com", PEOPLE.dee.github)).toMatchObject({
      userId: dee?.id,
      provider: "github",
    });
  });
});
