import { pbkdf2, scrypt, timingSafeEqual } from "node:crypto";

/**
 * Hashes brought over from another system (docs/importing-users.md) that the default hasher
 * verifies besides argon2: bcrypt (`$2a$`, `$2b$`, `$2y$`), Django's PBKDF2
 * (`pbkdf2_sha256$<iterations>$<salt>$<base64>`) and PHC-format scrypt
 * (`$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`). argon2i and argon2d PHC strings are read by
 * the argon2 library itself. Each verifies in constant time; the next successful login replaces
 * it with argon2id (the hasher's `needsRehash` is true for all of them).
 *
 * A hash that does not parse, or whose parameters are outside the bounds below, verifies nothing
 * (false, never a throw): an import that went wrong fails closed, and no record can make one
 * login run for minutes.
 */
export type ImportedHashKind = "bcrypt" | "django-pbkdf2" | "scrypt";

/** The highest bcrypt cost verified: pure-JS bcrypt takes about a second at 14 and doubles per step. */
export const MAX_BCRYPT_COST = 16;
/** The most PBKDF2 iterations verified (Django 5 writes 870,000 to 1,200,000). */
export const MAX_PBKDF2_ITERATIONS = 5_000_000;
/** The most memory an scrypt verify may take (128 · N · r bytes). */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
const DJANGO_PBKDF2 = /^pbkdf2_sha256\$(\d{1,8})\$([^$]{1,256})\$([A-Za-z0-9+/]{43}=)$/;
const SCRYPT =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/.]{11,172})\$([A-Za-z0-9+/.]{22,172})$/;

/** Which imported kind `hash` is written as (by its prefix alone), or null. */
export function importedHashKind(hash: string): ImportedHashKind | null {
  if (hash.startsWith("$2")) return "bcrypt";
  if (hash.startsWith("pbkdf2_sha256$")) return "django-pbkdf2";
  if (hash.startsWith("$scrypt$")) return "scrypt";
  return null;
}

/**
 * True when `password` matches the imported `hash`; false for a mismatch, a hash of no imported
 * kind, or one that is malformed or outside the bounds (never throws).
 */
export async function verifyImportedHash(hash: string, password: string): Promise<boolean> {
  try {
    switch (importedHashKind(hash)) {
      case "bcrypt":
        return await verifyBcrypt(hash, password);
      case "django-pbkdf2":
        return await verifyDjangoPbkdf2(hash, password);
      case "scrypt":
        return await verifyScrypt(hash, password);
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/** bcryptjs is loaded the first time a bcrypt hash is met (most hosts never meet one). */
let bcryptjs: Promise<typeof import("bcryptjs")> | undefined;

async function verifyBcrypt(hash: string, password: string): Promise<boolean> {
  const match = BCRYPT.exec(hash);
  if (!match) return false;
  const cost = Number(match[1]);
  if (cost < 4 || cost > MAX_BCRYPT_COST) return false;
  bcryptjs ??= import("bcryptjs");
  // bcryptjs compares the two hashes in constant time, in chunks that yield to the event loop.
  return (await bcryptjs).compare(password, hash);
}

async function verifyDjangoPbkdf2(hash: string, password: string): Promise<boolean> {
  const match = DJANGO_PBKDF2.exec(hash);
  if (!match) return false;
  const [, iterationsText, salt, encoded] = match as unknown as [string, string, string, string];
  const iterations = Number(iterationsText);
  if (iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS) return false;
  const expected = Buffer.from(encoded, "base64");
  const derived = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(password, salt, iterations, expected.length, "sha256", (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
  return timingSafeEqual(derived, expected);
}

/** PHC's B64 (standard alphabet, no padding), also with passlib's `.` for `+`. */
const phcBase64 = (text: string) => Buffer.from(text.replace(/\./g, "+"), "base64");

async function verifyScrypt(hash: string, password: string): Promise<boolean> {
  const match = SCRYPT.exec(hash);
  if (!match) return false;
  const [, ln, r, p, saltText, hashText] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const cost = 2 ** Number(ln);
  const blockSize = Number(r);
  const parallelization = Number(p);
  if (Number(ln) < 1 || Number(ln) > 24 || blockSize < 1 || parallelization < 1 || parallelization > 16) {
    return false;
  }
  const memory = 128 * cost * blockSize;
  if (memory > MAX_SCRYPT_MEMORY) return false;
  const salt = phcBase64(saltText);
  const expected = phcBase64(hashText);
  if (expected.length < 16 || expected.length > 128) return false;
  const derived = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password,
      salt,
      expected.length,
      { N: cost, r: blockSize, p: parallelization, maxmem: memory + 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
  return timingSafeEqual(derived, expected);
}
