import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { createMemoryStores, type MemoryStores } from "@portcullis/store-memory";
import { referenceTotp } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importToStores } from "./import-to-stores.js";
import { jsonlSource } from "./jsonl-source.js";
import { codeOf, FIRST_RUN, OKTA, scenarioLines, TWO_FACTOR_KEY } from "./test-scenario.js";

// The import through the core's ports, into a host's own stores (here the memory ones): the same
// file and decisions as the SQL scenario, without a ledger or a transaction.
describe("importToStores", () => {
  let dir = "";
  let file = "";
  const stores: MemoryStores = createMemoryStores();
  const run = (dryRun: boolean) =>
    importToStores({
      source: jsonlSource(file),
      stores,
      dryRun,
      issuers: { okta: OKTA },
      twoFactorKey: TWO_FACTOR_KEY,
    });
  const auth = createAuth({
    secret: "import-to-stores-secret-Vb4kQ9xTz2Lm7RwHc8NdJ3FpGs6YeUa",
    stores,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
    twoFactor: { encryptionKey: TWO_FACTOR_KEY },
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-import-stores-"));
    file = join(dir, "users.jsonl");
    await writeFile(file, (await scenarioLines()).join("\n"));
    await auth.register({}, { email: "existing@example.test", password: "the existing account's password" });
  });
  afterAll(async () => {
    stores.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("importToStores - a dry run decides as the SQL import does and writes nothing; the real run imports the good rows", async () => {
    expect(await run(true)).toEqual({ ...FIRST_RUN, dryRun: true });
    expect(await stores.users.findByEmail("alice@example.test")).toBeNull();
    expect(await run(false)).toEqual({ ...FIRST_RUN, dryRun: false });
    const alice = await stores.users.findByEmail("alice@example.test");
    expect(alice).toMatchObject({ emailVerified: true, identityProviders: ["github"] });
    expect(await stores.identities.findBySubject("https://github.com", "1001")).toMatchObject({
      userId: alice?.id,
    });
    // Frank's link is Alice's: refused before anything of his was written.
    expect(await stores.users.findByEmail("frank@example.test")).toBeNull();
  });

  it("importToStores - old passwords, the old TOTP secret and passkeys work through the core", async () => {
    expect(
      await codeOf(auth.login({}, { email: "alice@example.test", password: "alice's old password" })),
    ).toBe("signed in");
    const first = await auth.login({}, { email: "grace@example.test", password: "grace's old password" });
    if (!first.twoFactorRequired) throw new Error("expected Grace's TOTP");
    const code = referenceTotp("JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", Date.now());
    expect(
      await codeOf(auth.completeTwoFactorLogin({ token: first.twoFactorAuthenticationToken }, { code })),
    ).toBe("signed in");
    const grace = await stores.users.findByEmail("grace@example.test");
    expect(await stores.passkeys.listByUser(grace?.id ?? "")).toHaveLength(1);
  });

  it("importToStores - a second run duplicates nothing: every imported address is taken", async () => {
    const summary = await run(false);
    expect(summary.imported).toBe(0);
    expect(summary.skipped.email_taken).toEqual({ count: 6, lines: [1, 2, 5, 7, 9, 11] });
  });

  it("importToStores - a store that fails after the user was created takes the account back", async () => {
    const failing = {
      ...stores,
      identities: {
        ...stores.identities,
        findBySubject: stores.identities.findBySubject.bind(stores.identities),
        unlink: stores.identities.unlink.bind(stores.identities),
        link: () => Promise.reject(new Error("the identities table is gone")),
      },
    };
    const line = JSON.stringify({
      email: "judy@example.test",
      identities: [{ provider: "github", subject: "77" }],
    });
    await writeFile(join(dir, "one.jsonl"), line);
    await expect(
      importToStores({ source: jsonlSource(join(dir, "one.jsonl")), stores: failing }),
    ).rejects.toThrow(/identities table is gone/);
    expect(await stores.users.findByEmail("judy@example.test")).toBeNull();
  });
});
