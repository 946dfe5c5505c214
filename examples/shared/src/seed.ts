import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createArgon2Hasher, isValidEmail, normalizeEmail, type UserStore } from "@portcullis/core";
import { z } from "zod";
import { ConfigError } from "./config.js";

const seedUser = z.strictObject({
  email: z.string().transform(normalizeEmail).refine(isValidEmail, "must be a valid email address"),
  password: z.string().min(1).max(256).optional(),
  name: z.string().min(1).max(100).optional(),
  emailVerified: z.boolean().optional(),
  identityProviders: z.array(z.string().min(1).max(50)).max(10).optional(),
});
const seedFile = z.array(seedUser).max(10_000);

export type SeedUser = z.input<typeof seedUser>;

/**
 * Creates the users of a SEED_FILE (a JSON array of `{ email, password?, name?, emailVerified?,
 * identityProviders? }`) through the UserStore, hashing passwords with the default argon2id
 * parameters. Users that exist already are left alone. Returns how many were created.
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
      passwordHash: user.password ? await hasher.hash(user.password.normalize("NFKC")) : null,
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
