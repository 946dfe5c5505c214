import { scryptSync } from "node:crypto";
import { hash as argon2Hash } from "@node-rs/argon2";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import type { UserRecord } from "../ports/user-store.js";
import { code, createLineLogger, createTestAuth, signIn } from "../test-support.js";
import { createArgon2Hasher } from "./argon2-hasher.js";
import {
  importedHashKind,
  MAX_ARGON2_MEMORY_KIB,
  MAX_ARGON2_PARALLELISM,
  MAX_ARGON2_TIME_COST,
  passwordHashProblem,
  verifyImportedHash,
} from "./imported-hashes.js";

/** The password of the vectors below, written by other implementations (Python's hashlib). */
const PASSWORD = "lètmein imported";

/**
 * Hashes of `PASSWORD` as other systems store them. The PBKDF2 and scrypt ones were made with
 * Python's `hashlib` (not node:crypto, which verifies them), the bcrypt one is the classic
 * OpenBSD vector of "U*U" under its three prefixes.
 */
const IMPORTED_VECTORS = {
  django: "pbkdf2_sha256$1000$seasaltSEASALT1$bc/fFbhSCgPMGoT77VDIpHZtmr8D9WItP5gnibWEgzU=",
  scrypt: "$scrypt$ln=4,r=8,p=1$+/v7ABEiM0RVZneImaq7zA$J/qgEUsLa2QZpCs7GcplgR/QP6mOmXUIDEnoSl8c8KA",
  // passlib writes PHC B64 with `.` for `+`.
  scryptPasslib: "$scrypt$ln=4,r=8,p=1$./v7ABEiM0RVZneImaq7zA$J/qgEUsLa2QZpCs7GcplgR/QP6mOmXUIDEnoSl8c8KA",
};
/**
 * Better Auth's credential hashes (`hex(salt):hex(key)`), made by Better Auth itself: `better-auth`
 * 1.7.25 installed from npm in a scratch directory outside this repo, then
 * `import { hashPassword } from "better-auth/crypto"; await hashPassword(password)` once per
 * password. `fullWidth` is of "ｐａｓｓ\u00A0word ①", which NFKC turns into "pass word 1".
 */
const BETTER_AUTH_VECTORS = {
  [PASSWORD]:
    "a1e5d0d98e6f9dfad7826974d86f29a1:0e110cd2c38a13b42e29714ac987ab9548e54cd03f46345cbc907306b9c896db9bedad4c281508b6b08f75cf8ae72088b0effa1e7364e12e21cc0cbb2699f596",
  "correct horse battery staple":
    "7d340bb7a28c3402502982b051f44083:f7a6b0bf3e42cd2211c631ce94936d161f15ddb028a8f03641b15baee960e7417c812acce09208888c0aa20bf1f76a8c1a2f653b1e235ac6bbd1b07af1466aa7",
  "ｐａｓｓ\u00A0word ①":
    "9f6d00b85663dbd81d9f6fbef44039af:205be02820becfce9a3a3076a06d964ef2eb49817c033e47d9dca13b72ef981d6fa864b81e72e3425ff68a57732541365388304e0bacbc81746e7f2813fc422b",
};
const BETTER_AUTH_HASH = BETTER_AUTH_VECTORS[PASSWORD];
const BCRYPT_UXU = "CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

/** `@node-rs/argon2`'s `Algorithm` (a const enum): argon2d 0, argon2i 1. */
const ARGON2D = 0;
const ARGON2I = 1;

const cheapArgon2 = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

describe("imported hashes", () => {
  const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });

  it("verifyImportedHash - bcrypt $2a$, $2b$ and $2y$ verify the right password only", async () => {
    for (const prefix of ["$2a$05$", "$2b$05$", "$2y$05$"]) {
      expect(await verifyImportedHash(prefix + BCRYPT_UXU, "U*U")).toBe(true);
      expect(await verifyImportedHash(prefix + BCRYPT_UXU, "U*V")).toBe(false);
    }
    const made = await bcrypt.hash(PASSWORD, 4);
    expect(await hasher.verify(made, PASSWORD)).toBe(true);
    expect(await hasher.verify(made, `${PASSWORD}!`)).toBe(false);
  });

  it("verifyImportedHash - Django PBKDF2 and PHC scrypt (also passlib's alphabet) verify the right password only", async () => {
    for (const hashed of Object.values(IMPORTED_VECTORS)) {
      expect(await hasher.verify(hashed, PASSWORD)).toBe(true);
      expect(await hasher.verify(hashed, "letmein imported")).toBe(false);
      expect(hasher.needsRehash(hashed)).toBe(true);
    }
  });

  it("verifyImportedHash - Better Auth's scrypt hashes verify their own password only, and need a rehash", async () => {
    const passwords = Object.keys(BETTER_AUTH_VECTORS);
    for (const [password, hashed] of Object.entries(BETTER_AUTH_VECTORS)) {
      expect(importedHashKind(hashed)).toBe("better-auth-scrypt");
      expect(passwordHashProblem(hashed)).toBeNull();
      expect(await hasher.verify(hashed, password), password).toBe(true);
      for (const other of passwords.filter((candidate) => candidate !== password)) {
        expect(await verifyImportedHash(hashed, other), other).toBe(false);
      }
      expect(hasher.needsRehash(hashed)).toBe(true);
    }
    // The login hands the verifier NFKC text; the hash was made from the typed full-width text.
    expect(await verifyImportedHash(BETTER_AUTH_VECTORS["ｐａｓｓ\u00A0word ①"], "pass word 1")).toBe(true);
  });

  it("verifyImportedHash - a Better Auth hash keyed with the salt's bytes instead of its hex text does not verify", async () => {
    // What a port that decoded the salt would write: same password, same salt, another key.
    const salt = BETTER_AUTH_HASH.slice(0, 32);
    const key = scryptSync(PASSWORD, Buffer.from(salt, "hex"), 64, {
      N: 16384,
      r: 16,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    expect(await verifyImportedHash(`${salt}:${key.toString("hex")}`, PASSWORD)).toBe(false);
  });

  it("passwordHashProblem - a Better Auth hash in upper case, of the wrong lengths or malformed is unreadable and verifies nothing", async () => {
    const [salt, key] = BETTER_AUTH_HASH.split(":") as [string, string];
    const refused = [
      BETTER_AUTH_HASH.toUpperCase(),
      `${salt.toUpperCase()}:${key}`,
      `${salt}:${key.toUpperCase()}`,
      `${salt.slice(2)}:${key}`,
      `${salt}00:${key}`,
      `${salt}:${key.slice(2)}`,
      `${salt}:${key}00`,
      `${salt}:${key.slice(0, 64)}`,
      `${salt}:`,
      `:${key}`,
      `${salt}:${key}:${key}`,
      `${salt}:${key.slice(1)}g`,
      ` ${BETTER_AUTH_HASH}`,
      `${BETTER_AUTH_HASH}\n`,
    ];
    for (const hashed of refused) {
      expect(passwordHashProblem(hashed), hashed).toBe("unreadable");
      await expect(hasher.verify(hashed, PASSWORD), hashed).resolves.toBe(false);
      await expect(verifyImportedHash(hashed, PASSWORD), hashed).resolves.toBe(false);
    }
  });

  it("createArgon2Hasher - argon2i and argon2d hashes verify and need a rehash", async () => {
    for (const algorithm of [ARGON2D, ARGON2I]) {
      const hashed = await argon2Hash(PASSWORD, { ...cheapArgon2, algorithm });
      expect(hashed).toMatch(algorithm === ARGON2D ? /^\$argon2d\$/ : /^\$argon2i\$/);
      expect(await hasher.verify(hashed, PASSWORD)).toBe(true);
      expect(await hasher.verify(hashed, "wrong password")).toBe(false);
      expect(hasher.needsRehash(hashed)).toBe(true);
    }
    expect(hasher.needsRehash(await hasher.hash(PASSWORD))).toBe(false);
  });

  it("importedHashKind - names the kind by its prefix, null for argon2 and anything else", () => {
    expect(importedHashKind(`$2b$05$${BCRYPT_UXU}`)).toBe("bcrypt");
    expect(importedHashKind(IMPORTED_VECTORS.django)).toBe("django-pbkdf2");
    expect(importedHashKind(IMPORTED_VECTORS.scrypt)).toBe("scrypt");
    expect(importedHashKind("$argon2i$v=19$m=1024,t=1,p=1$c29tZXNhbHQ$aGFzaA")).toBeNull();
    expect(importedHashKind("md5$abc$def")).toBeNull();
  });

  it("verify - malformed hashes and parameters out of bounds fail closed without throwing", async () => {
    const [, , django] = IMPORTED_VECTORS.django.split("$");
    const djangoHash = IMPORTED_VECTORS.django.split("$")[3];
    const malformed = [
      "",
      "plain text",
      "$2a$05$short",
      `$2x$05$${BCRYPT_UXU}`,
      `$2a$03$${BCRYPT_UXU}`,
      `$2a$17$${BCRYPT_UXU}`,
      `$2a$99$${BCRYPT_UXU}`,
      `$2a$05$${BCRYPT_UXU}!`,
      `pbkdf2_sha256$abc$${django}$${djangoHash}`,
      `pbkdf2_sha256$0$${django}$${djangoHash}`,
      `pbkdf2_sha256$99999999$${django}$${djangoHash}`,
      `pbkdf2_sha256$1000$${django}$not-base64`,
      `pbkdf2_sha256$1000$${django}`,
      "pbkdf2_sha256$$$",
      IMPORTED_VECTORS.scrypt.replace("ln=4", "ln=40"),
      IMPORTED_VECTORS.scrypt.replace("ln=4", "ln=0"),
      IMPORTED_VECTORS.scrypt.replace("r=8", "r=999"),
      IMPORTED_VECTORS.scrypt.replace("p=1", "p=0"),
      "$scrypt$ln=4,r=8,p=1$$",
      "$scrypt$ln=4,r=8,p=1$c2FsdHNhbHQ$c2hvcnQ",
      "$scrypt$v=1$ln=4,r=8,p=1",
      "$argon2i$v=19$m=1024,t=1,p=1$c29tZXNhbHQ",
      "$argon2d$v=19$m=1024,t=1,p=1$!!!$???",
      "$argon2id$",
      `$2b$05$${"\u0000".repeat(53)}`,
    ];
    for (const hashed of malformed) {
      await expect(hasher.verify(hashed, PASSWORD), hashed).resolves.toBe(false);
      await expect(verifyImportedHash(hashed, PASSWORD), hashed).resolves.toBe(false);
      expect(hasher.needsRehash(hashed), hashed).toBe(true);
    }
  });
});

/** An account as an import writes it: verified, no 2FA, the other system's hash. */
const importedUser = (id: string, email: string, passwordHash: string): UserRecord => ({
  id,
  email,
  emailVerified: true,
  name: null,
  passwordHash,
  identityProviders: [],
  twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
  createdAt: 0,
});

describe("login with imported hashes", () => {
  async function importedAccounts() {
    const { auth, stores } = createTestAuth({ email: { enabled: false } });
    const kinds: Record<string, string> = {
      bcrypt: await bcrypt.hash(PASSWORD, 4),
      bcrypt2y: (await bcrypt.hash(PASSWORD, 4)).replace(/^\$2b\$/, "$2y$"),
      django: IMPORTED_VECTORS.django,
      scrypt: IMPORTED_VECTORS.scrypt,
      betterauth: BETTER_AUTH_HASH,
      argon2i: await argon2Hash(PASSWORD, { ...cheapArgon2, algorithm: ARGON2I }),
      argon2d: await argon2Hash(PASSWORD, { ...cheapArgon2, algorithm: ARGON2D }),
    };
    for (const [kind, hashed] of Object.entries(kinds)) {
      await stores.users.create(importedUser(`imported-${kind}`, `${kind}@import.test`, hashed));
    }
    return { auth, stores, kinds };
  }

  it("login - each imported kind signs in once and is stored as argon2id with the current parameters", async () => {
    const { auth, stores, kinds } = await importedAccounts();
    for (const kind of Object.keys(kinds)) {
      const email = `${kind}@import.test`;
      const signedIn = await signIn(auth, { email, password: PASSWORD });
      expect(signedIn.user.email).toBe(email);
      const stored = (await stores.users.findByEmail(email))?.passwordHash;
      expect(stored, kind).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
      // The new hash works, the old one is gone.
      expect((await signIn(auth, { email, password: PASSWORD })).user.email).toBe(email);
      expect((await stores.users.findByEmail(email))?.passwordHash).toBe(stored);
    }
  });

  it("login - a wrong password against each imported kind is INVALID_CREDENTIALS and keeps the hash", async () => {
    const { auth, stores, kinds } = await importedAccounts();
    for (const [kind, hashed] of Object.entries(kinds)) {
      const email = `${kind}@import.test`;
      expect(await code(signIn(auth, { email, password: "letmein imported" })), kind).toBe(
        "INVALID_CREDENTIALS",
      );
      expect((await stores.users.findByEmail(email))?.passwordHash).toBe(hashed);
    }
  });

  it("login - a malformed imported hash fails like a wrong password, with no throw escaping", async () => {
    const { auth, stores } = createTestAuth({ email: { enabled: false } });
    const broken = [
      "$2b$05$broken",
      "pbkdf2_sha256$1000$salt$",
      "$scrypt$ln=99,r=8,p=1$YQ$YQ",
      "$argon2i$v=19$",
      BETTER_AUTH_HASH.toUpperCase(),
    ];
    for (const [index, hashed] of broken.entries()) {
      await stores.users.create(importedUser(`broken-${index}`, `broken${index}@import.test`, hashed));
      expect(await code(signIn(auth, { email: `broken${index}@import.test`, password: PASSWORD }))).toBe(
        "INVALID_CREDENTIALS",
      );
    }
  });
});

describe("argon2 parameter bounds", () => {
  /** A well-formed argon2id PHC string of any parameters (the hash itself is random bytes). */
  const argon2idOf = (m: number, t: number, p: number) =>
    `$argon2id$v=19$m=${m},t=${t},p=${p}$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g`;

  it("verify - an argon2 hash above the time or parallelism bound is refused even with the right password, and a warning logged", async () => {
    const { logger, lines } = createLineLogger();
    const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1, logger });
    const overTime = await argon2Hash(PASSWORD, { ...cheapArgon2, timeCost: MAX_ARGON2_TIME_COST + 1 });
    const overLanes = await argon2Hash(PASSWORD, {
      ...cheapArgon2,
      memoryCost: 8 * (MAX_ARGON2_PARALLELISM + 1),
      parallelism: MAX_ARGON2_PARALLELISM + 1,
    });
    const atBounds = await argon2Hash(PASSWORD, {
      ...cheapArgon2,
      timeCost: MAX_ARGON2_TIME_COST,
      memoryCost: 8 * MAX_ARGON2_PARALLELISM,
      parallelism: MAX_ARGON2_PARALLELISM,
    });
    expect(await hasher.verify(atBounds, PASSWORD)).toBe(true);
    expect(lines).toEqual([]);
    for (const hashed of [overTime, overLanes]) {
      expect(await hasher.verify(hashed, PASSWORD), hashed).toBe(false);
      expect(hasher.needsRehash(hashed)).toBe(true);
    }
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: "warn", event: "password_hash.out_of_bounds", kind: "argon2" }),
      expect.objectContaining({ level: "warn", event: "password_hash.out_of_bounds", kind: "argon2" }),
    ]);
    // The warning never carries the hash.
    expect(lines.join("\n")).not.toContain("$argon2");
  });

  it("verify - an argon2 hash asking for gigabytes answers at once without hashing", async () => {
    const { logger, lines } = createLineLogger();
    const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1, logger });
    // Just above the bound: before it was checked this one hashed with 256 MiB (hundreds of ms).
    const started = performance.now();
    expect(await hasher.verify(argon2idOf(MAX_ARGON2_MEMORY_KIB + 1024, 1, 1), PASSWORD)).toBe(false);
    // The record the review found: 4 GiB and t=100, minutes of hashing.
    expect(await hasher.verify(argon2idOf(4_194_304, 100, 1), PASSWORD)).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    expect(lines).toHaveLength(2);
  });

  it("verify - the hasher's own parameters verify even when they exceed the import bounds", async () => {
    const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: MAX_ARGON2_TIME_COST + 2 });
    const own = await hasher.hash(PASSWORD);
    expect(await hasher.verify(own, PASSWORD)).toBe(true);
    expect(hasher.needsRehash(own)).toBe(false);
  });

  it("passwordHashProblem - names what an import would store wrongly, null for a usable hash", async () => {
    expect(passwordHashProblem(await argon2Hash(PASSWORD, cheapArgon2))).toBeNull();
    expect(passwordHashProblem(IMPORTED_VECTORS.django)).toBeNull();
    expect(passwordHashProblem(IMPORTED_VECTORS.scrypt)).toBeNull();
    expect(passwordHashProblem(`$2b$05$${BCRYPT_UXU}`)).toBeNull();
    expect(passwordHashProblem(argon2idOf(4_194_304, 100, 1))).toBe("out_of_bounds");
    expect(passwordHashProblem(argon2idOf(1024, MAX_ARGON2_TIME_COST + 1, 1))).toBe("out_of_bounds");
    expect(passwordHashProblem(argon2idOf(1024, 1, MAX_ARGON2_PARALLELISM + 1))).toBe("out_of_bounds");
    expect(passwordHashProblem(`$2a$17$${BCRYPT_UXU}`)).toBe("out_of_bounds");
    expect(passwordHashProblem(`pbkdf2_sha256$99999999$salt$${IMPORTED_VECTORS.django.split("$")[3]}`)).toBe(
      "out_of_bounds",
    );
    expect(passwordHashProblem(IMPORTED_VECTORS.scrypt.replace("ln=4", "ln=25"))).toBe("out_of_bounds");
    for (const unreadable of ["", "plain text", "md5$abc$def", "$argon2id$", "$2a$05$short"]) {
      expect(passwordHashProblem(unreadable), unreadable).toBe("unreadable");
    }
  });

  it("createUser - a passwordHash outside the bounds or unreadable is VALIDATION_FAILED on passwordHash", async () => {
    const { auth, stores } = createTestAuth();
    const refused = [
      argon2idOf(4_194_304, 100, 1),
      "plain text",
      `$2a$17$${BCRYPT_UXU}`,
      BETTER_AUTH_HASH.toUpperCase(),
    ];
    for (const passwordHash of refused) {
      const refused = await auth.host
        .createUser({}, { email: "imported@x.test", passwordHash, emailVerified: true })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: "VALIDATION_FAILED",
        issues: [expect.objectContaining({ path: "passwordHash", rule: "invalid_format" })],
      });
    }
    expect(await stores.users.findByEmail("imported@x.test")).toBeNull();
  });

  it("createUser - an imported passwordHash within the bounds is stored as given and signs in", async () => {
    const { auth, stores } = createTestAuth({ email: { enabled: false } });
    for (const [index, passwordHash] of [IMPORTED_VECTORS.django, BETTER_AUTH_HASH].entries()) {
      const email = `imported${index}@x.test`;
      await auth.host.createUser({}, { email, passwordHash, emailVerified: true });
      expect((await stores.users.findByEmail(email))?.passwordHash).toBe(passwordHash);
      expect((await signIn(auth, { email, password: PASSWORD })).user.email).toBe(email);
    }
    const both = await auth.host
      .createUser({}, { email: "both@x.test", password: PASSWORD, passwordHash: IMPORTED_VECTORS.django })
      .catch((error: unknown) => error);
    expect(both).toMatchObject({ code: "VALIDATION_FAILED" });
  });
});
