import { pbkdf2, scrypt, timingSafeEqual } from "node:crypto";
import { parseOptions } from "@node-rs/argon2";

/**
 * Hashes brought over from another system (docs/importing-users.md) that the default hasher
 * verifies besides argon2: bcrypt (`$2a$`, `$2b$`, `$2y$`), Django's PBKDF2
 * (`pbkdf2_sha256$<iterations>$<salt>$<base64>`), PHC-format scrypt
 * (`$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`) and Better Auth's scrypt
 * (`<hex salt>:<hex key>`). argon2i and argon2d PHC strings (and argon2id ones with other
 * parameters) are read by the argon2 library itself, within the bounds below. Each verifies in
 * constant time; the next successful login replaces it with argon2id (the hasher's `needsRehash`
 * is true for all of them).
 *
 * A hash that does not parse, or whose parameters are outside the bounds below, verifies nothing
 * (false, never a throw): an import that went wrong fails closed, and no record can make one
 * login run for minutes.
 */
export type ImportedHashKind = "bcrypt" | "django-pbkdf2" | "scrypt" | "better-auth-scrypt";

/** The highest bcrypt cost verified: pure-JS bcrypt takes about a second at 14 and doubles per step. */
export const MAX_BCRYPT_COST = 16;
/** The most PBKDF2 iterations verified (Django 5 writes 870,000 to 1,200,000). */
export const MAX_PBKDF2_ITERATIONS = 5_000_000;
/** The most memory an scrypt verify may take (128 · N · r bytes). */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
/** The most memory (`m`, KiB) an argon2 hash not written by this hasher may ask for: 256 MiB. */
export const MAX_ARGON2_MEMORY_KIB = 256 * 1024;
/** The most passes (`t`) an argon2 hash not written by this hasher may ask for. */
export const MAX_ARGON2_TIME_COST = 16;
/** The most lanes (`p`) an argon2 hash not written by this hasher may ask for. */
export const MAX_ARGON2_PARALLELISM = 16;
/** The longest argon2 output (bytes) verified. */
const MAX_ARGON2_OUTPUT = 128;

const BCRYPT = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
const DJANGO_PBKDF2 = /^pbkdf2_sha256\$(\d{1,8})\$([^$]{1,256})\$([A-Za-z0-9+/]{43}=)$/;
const SCRYPT =
  /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/.]{11,172})\$([A-Za-z0-9+/.]{22,172})$/;

/**
 * Better Auth's credential hash: 16 random bytes of salt as 32 lower-case hex characters, a colon,
 * the 64-byte scrypt key as 128 lower-case hex characters. Its parameters are fixed (below), so
 * such a hash is never out of bounds.
 */
const BETTER_AUTH_SCRYPT = /^([0-9a-f]{32}):([0-9a-f]{128})$/;
/** What looks like a Better Auth hash (hex, a colon, hex) before its case and lengths are checked. */
const BETTER_AUTH_SHAPE = /^[0-9A-Fa-f]+:[0-9A-Fa-f]+$/;
/** Better Auth's scrypt parameters (N=16384, r=16, p=1, 64-byte key): 32 MiB per verify. */
const BETTER_AUTH_PARAMETERS = { N: 16384, r: 16, p: 1, maxmem: 128 * 16384 * 16 + 1024 * 1024 };

/** argon2's own parameters, as a PHC string states them. */
export interface Argon2Parameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** Whether `hash` is an argon2 PHC string (`$argon2i$`, `$argon2d$`, `$argon2id$`), by its prefix. */
export const isArgon2Hash = (hash: string) => /^\$argon2(?:i|d|id)\$/.test(hash);

/**
 * Whether the argon2 `hash`'s parameters are within the bounds above, or no higher than `own`
 * (the hasher's configured ones, which may be higher on purpose): "out_of_bounds" when not,
 * "unreadable" when `hash` does not parse, null when it may be verified. Reads the parameters
 * only; never hashes.
 */
export function argon2HashProblem(hash: string, own?: Argon2Parameters): HashProblem | null {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    if (hash.length > 1024) return "out_of_bounds";
    parsed = parseOptions(hash);
  } catch {
    return "unreadable";
  }
  const within =
    parsed.memoryCost <= Math.max(MAX_ARGON2_MEMORY_KIB, own?.memoryCost ?? 0) &&
    parsed.timeCost <= Math.max(MAX_ARGON2_TIME_COST, own?.timeCost ?? 0) &&
    parsed.parallelism <= Math.max(MAX_ARGON2_PARALLELISM, own?.parallelism ?? 0) &&
    (parsed.outputLen ?? 32) <= MAX_ARGON2_OUTPUT;
  return within ? null : "out_of_bounds";
}

/** Why a password hash cannot be verified: it does not parse, or its parameters are out of bounds. */
export type HashProblem = "unreadable" | "out_of_bounds";

/**
 * What is wrong with `hash` as a stored password hash of the default hasher (an import, a seed,
 * `host.createUser`'s `passwordHash`): "unreadable" when it is no kind verified here or does not
 * parse, "out_of_bounds" when its parameters are above the bounds (argon2: `m` ≤ 256 MiB,
 * `t` ≤ 16, `p` ≤ 16; bcrypt cost 4 to 16; PBKDF2 ≤ 5,000,000 iterations; scrypt ln ≤ 24, p ≤ 16,
 * 128·N·r ≤ 256 MiB; Better Auth's scrypt has fixed parameters, so it is never out of bounds),
 * null when it can be stored. Never hashes.
 */
export function passwordHashProblem(hash: string): HashProblem | null {
  if (isArgon2Hash(hash)) return argon2HashProblem(hash);
  switch (importedHashKind(hash)) {
    case "bcrypt":
      return bcryptProblem(hash);
    case "django-pbkdf2":
      return problemOf(parseDjangoPbkdf2(hash));
    case "scrypt":
      return problemOf(parseScrypt(hash));
    case "better-auth-scrypt":
      return problemOf(parseBetterAuthScrypt(hash));
    default:
      return "unreadable";
  }
}

const problemOf = (parsed: object | HashProblem) => (typeof parsed === "string" ? parsed : null);

/**
 * Which imported kind `hash` is written as, or null: by its prefix, or for Better Auth's (which
 * has none) by its shape, hex digits on both sides of one colon. Whether it then parses is
 * `passwordHashProblem`'s question.
 */
export function importedHashKind(hash: string): ImportedHashKind | null {
  if (hash.startsWith("$2")) return "bcrypt";
  if (hash.startsWith("pbkdf2_sha256$")) return "django-pbkdf2";
  if (hash.startsWith("$scrypt$")) return "scrypt";
  if (BETTER_AUTH_SHAPE.test(hash)) return "better-auth-scrypt";
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
      case "better-auth-scrypt":
        return await verifyBetterAuthScrypt(hash, password);
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/** bcryptjs is loaded the first time a bcrypt hash is met (most hosts never meet one). */
let bcryptjs: Promise<typeof import("bcryptjs")> | undefined;

function bcryptProblem(hash: string): HashProblem | null {
  const match = BCRYPT.exec(hash);
  if (!match) return "unreadable";
  const cost = Number(match[1]);
  return cost < 4 || cost > MAX_BCRYPT_COST ? "out_of_bounds" : null;
}

async function verifyBcrypt(hash: string, password: string): Promise<boolean> {
  if (bcryptProblem(hash) !== null) return false;
  bcryptjs ??= import("bcryptjs");
  // bcryptjs compares the two hashes in constant time, in chunks that yield to the event loop.
  return (await bcryptjs).compare(password, hash);
}

function parseDjangoPbkdf2(
  hash: string,
): { iterations: number; salt: string; encoded: string } | HashProblem {
  const match = DJANGO_PBKDF2.exec(hash);
  if (!match) return "unreadable";
  const [, iterationsText, salt, encoded] = match as unknown as [string, string, string, string];
  const iterations = Number(iterationsText);
  if (iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS) return "out_of_bounds";
  return { iterations, salt, encoded };
}

async function verifyDjangoPbkdf2(hash: string, password: string): Promise<boolean> {
  const parsed = parseDjangoPbkdf2(hash);
  if (typeof parsed === "string") return false;
  const { iterations, salt, encoded } = parsed;
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

interface ScryptParameters {
  cost: number;
  blockSize: number;
  parallelization: number;
  memory: number;
  salt: Buffer;
  expected: Buffer;
}

function parseScrypt(hash: string): ScryptParameters | HashProblem {
  const match = SCRYPT.exec(hash);
  if (!match) return "unreadable";
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
    return "out_of_bounds";
  }
  const memory = 128 * cost * blockSize;
  if (memory > MAX_SCRYPT_MEMORY) return "out_of_bounds";
  const salt = phcBase64(saltText);
  const expected = phcBase64(hashText);
  if (expected.length < 16 || expected.length > 128) return "unreadable";
  return { cost, blockSize, parallelization, memory, salt, expected };
}

async function verifyScrypt(hash: string, password: string): Promise<boolean> {
  const parsed = parseScrypt(hash);
  if (typeof parsed === "string") return false;
  const { cost, blockSize, parallelization, memory, salt, expected } = parsed;
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

/** Reads a Better Auth hash: its salt as the hex text Better Auth passes to scrypt, and its key. */
function parseBetterAuthScrypt(hash: string): { saltText: string; expected: Buffer } | HashProblem {
  const match = BETTER_AUTH_SCRYPT.exec(hash);
  if (!match) return "unreadable";
  const [, saltText, keyHex] = match as unknown as [string, string, string];
  return { saltText, expected: Buffer.from(keyHex, "hex") };
}

/**
 * Verifies a Better Auth hash as Better Auth does: scrypt of the NFKC-normalized password with the
 * salt's hex text (its 32 characters, not the 16 bytes they spell) as the salt, N=16384, r=16,
 * p=1, 64 bytes, compared in constant time.
 */
async function verifyBetterAuthScrypt(hash: string, password: string): Promise<boolean> {
  const parsed = parseBetterAuthScrypt(hash);
  if (typeof parsed === "string") return false;
  const derived = await new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password.normalize("NFKC"),
      parsed.saltText,
      parsed.expected.length,
      BETTER_AUTH_PARAMETERS,
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
  return timingSafeEqual(derived, parsed.expected);
}
