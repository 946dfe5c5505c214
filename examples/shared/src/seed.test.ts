import { createArgon2Hasher } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "./config.js";
import { seedUsers } from "./seed.js";

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
});
