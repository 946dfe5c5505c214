import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  createArgon2Hasher,
  isValidEmail,
  normalizeEmail,
  passwordHashProblem,
  type UserStore,
} from "@portcullis/core";
import { z } from "zod";
import { ConfigError } from "./config.js";

/** A hash brought from another system, stored as given: one the default hasher verifies, within its bounds. */
const importedHash = z
  .string()
  .min(1)
  .max(1024)
  .refine(
    (hash) => passwordHashProblem(hash) !== "unreadable",
    "is not a password hash of a kind the core verifies (argon2, bcrypt, Django PBKDF2, scrypt) or does not parse",
  )
  .refine(
    (hash) => passwordHashProblem(hash) !== "out_of_bounds",
    "asks for more memory or time than a verify is allowed (docs/importing-users.md)",
  );

const seedUser = z
  .strictObject({
    email: z.string().transform(normalizeEmail).refine(isValidEmail, "must be a valid email address"),
    password: z.string().min(1).max(256).optional(),
    passwordHash: importedHash.optional(),
    name: z.string().min(1).max(100).optional(),
    emailVerified: z.boolean().optional(),
    identityProviders: z.array(z.string().min(1).max(50)).max(10).optional(),
  })
  .refine(
    (user) => user.password === undefined || user.passwordHash === undefined,
    "has both password and passwordHash: give one of them",
  );
const seedFile = z.array(seedUser).max(10_000);

export type SeedUser = z.input<typeof seedUser>;

/**
 * Creates the users of a SEED_FILE (a JSON array of `{ email, password?, passwordHash?, name?,
 * emailVerified?, identityProviders? }`) through the UserStore, hashing passwords with the default
 * argon2id parameters. A `passwordHash` (argon2, bcrypt, Django PBKDF2 or scrypt, as an import
 * brings it: docs/importing-users.md) is stored as given, and the user signs in with the password
 * it was made from (the first sign-in replaces it with argon2id); one the core cannot verify, or
 * out of its bounds, is refused at start. Users that exist already are left alone. Returns how
 * many were created.
 */
export async function seedUsers(users: UserStore, input: unknown): Promise<number> {
  const parsed = seedFile.safeParse(input);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(
      `SEED_FILE is not valid: ${first?.path.join(".") || "(file)"} ${first?.message ?? ""}`.trim(),
    );
  }
  const hasher = createArgon2Hasher();
  let created = 0;
  for (const user of parsed.data) {
    const record = await users.create({
      // Derived from the address, so instances seeded from one file agree on user ids.
      id: createHash("sha256").update(user.email).digest("base64url").slice(0, 22),
      email: user.email,
      emailVerified: user.emailVerified ?? false,
      name: user.name ?? null,
      passwordHash: user.password
        ? await hasher.hash(user.password.normalize("NFKC"))
        : (user.passwordHash ?? null),
      identityProviders: user.identityProviders ?? [],
      twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
      createdAt: Date.now(),
    });
    if (record) created += 1;
  }
  return created;
}

export async function readSeedFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`SEED_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`SEED_FILE ${path} is not valid JSON`);
  }
}
