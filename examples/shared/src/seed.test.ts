import { pbkdf2Sync, scryptSync } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "./config.js";
import { seedUsers } from "./seed.js";
import { createExampleAuth } from "./setup.js";

const PASSWORD = "correct horse battery staple";
const SECRET = "example-seed-suite-secret-0a9uTq3Jd8pQx2Lm7Rv4Wc6Yb1Ne5Hs0Kg3Zf8Tu";
/** bcryptjs's hash of PASSWORD at cost 4. */
const BCRYPT = "$2b$04$Gr8vaGQ2iTIM1SyDUpWHyOnJ4J3ATKV.MuiDEuV0FWWvePefVdXky";

/** PASSWORD hashed as each kind an import may bring (docs/importing-users.md), by the seed entry's address. */
async function importedHashes(): Promise<Record<string, string>> {
  const salt = "seedsaltseedsalt";
  const phc = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "");
  const scrypt = scryptSync(PASSWORD, salt, 32, { N: 16, r: 8, p: 1 });
  return {
    "argon2@example.test": await createArgon2Hasher({ memoryCostKiB: 2048, timeCost: 2 }).hash(PASSWORD),
    "bcrypt@example.test": BCRYPT,
    "pbkdf2@example.test": `pbkdf2_sha256$1000$${salt}$${pbkdf2Sync(PASSWORD, salt, 1000, 32, "sha256").toString("base64")}`,
    "scrypt@example.test": `$scrypt$ln=4,r=8,p=1$${phc(Buffer.from(salt))}$${phc(scrypt)}`,
  };
}

describe("seedUsers", () => {
  const stores = createMemoryStores();
  afterEach(() => stores.close());

  it("seedUsers - creates normalized users with argon2id hashes and skips existing ones", async () => {
    const seed = [
      {
        email: " Ada@Example.test ",
        password: "correct horse battery staple",
        name: "Ada",
        emailVerified: true,
      },
      { email: "grace@example.test", identityProviders: ["github"] },
    ];
    expect(await seedUsers(stores.users, seed)).toBe(2);
    expect(await seedUsers(stores.users, seed)).toBe(0);
    const ada = await stores.users.findByEmail("ada@example.test");
    expect(ada).toMatchObject({ name: "Ada", emailVerified: true, identityProviders: [] });
    expect(ada?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await createArgon2Hasher().verify(ada?.passwordHash ?? "", "correct horse battery staple")).toBe(
      true,
    );
    const grace = await stores.users.findByEmail("grace@example.test");
    expect(grace).toMatchObject({ passwordHash: null, identityProviders: ["github"], emailVerified: false });
  });

  it("seedUsers - a malformed file is a ConfigError naming the entry", async () => {
    await expect(seedUsers(stores.users, { email: "a@b.test" })).rejects.toThrow(ConfigError);
    await expect(seedUsers(stores.users, [{ email: "nope" }])).rejects.toThrow(/0\.email/);
    await expect(seedUsers(stores.users, [{ email: "a@b.test", admin: true }])).rejects.toThrow(ConfigError);
  });

  it("seedUsers - a passwordHash of each imported kind is stored as given; SEED_FILE's users sign in with the original password", async () => {
    const hashes = await importedHashes();
    const dir = await mkdtemp(join(tmpdir(), "portcullis-seed-hashes-"));
    const seedFile = join(dir, "seed.json");
    const entries = Object.entries(hashes).map(([email, passwordHash]) => ({ email, passwordHash }));
    await writeFile(seedFile, JSON.stringify(entries));
    const example = await createExampleAuth(
      readConfig({ AUTH_SECRET: SECRET, SEED_FILE: seedFile }, () => {}),
      {
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      },
    );
    try {
      for (const [email, passwordHash] of Object.entries(hashes)) {
        expect((await example.stores.users.findByEmail(email))?.passwordHash).toBe(passwordHash);
        const wrong = example.auth.login({}, { email, password: "not the password at all" });
        await expect(wrong).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
        const signedIn = await example.auth.login({}, { email, password: PASSWORD });
        expect(signedIn, email).toMatchObject({ twoFactorRequired: false, user: { email } });
      }
    } finally {
      example.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("seedUsers - a passwordHash that cannot verify, out of bounds, or beside a password is a ConfigError naming the entry", async () => {
    const hashes = await importedHashes();
    const refused = [
      [{ email: "a@b.test", passwordHash: "not a hash" }, /0\.passwordHash/],
      [
        {
          email: "a@b.test",
          passwordHash: "$argon2id$v=19$m=4194304,t=100,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNo",
        },
        /0\.passwordHash/,
      ],
      [{ email: "a@b.test", passwordHash: BCRYPT.replace("$04$", "$31$") }, /0\.passwordHash/],
      [{ email: "a@b.test", password: PASSWORD, passwordHash: hashes["bcrypt@example.test"] }, /0/],
    ] as const;
    for (const [entry, naming] of refused) {
      const seeded = seedUsers(stores.users, [entry]);
      await expect(seeded, JSON.stringify(entry)).rejects.toThrow(ConfigError);
      await expect(seedUsers(stores.users, [entry])).rejects.toThrow(naming);
    }
    expect(await stores.users.findByEmail("a@b.test")).toBeNull();
  });
});
