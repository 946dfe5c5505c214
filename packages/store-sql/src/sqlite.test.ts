import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runApiKeyStoreSuite,
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runOrganizationStoreSuite,
  runPasskeyStoreSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { afterAll, beforeAll } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { conformanceFixture, type StoreKinds, sqliteDb } from "./test-databases.js";

// The conformance suites on SQLite, in memory and in a file; one database each, migrated once.
let memory: AnyKysely;
let file: AnyKysely;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-sqlite-"));
  memory = sqliteDb();
  file = sqliteDb(join(dir, "test.db"));
  await migrate(memory);
  await migrate(file);
});
afterAll(async () => {
  await memory.destroy();
  await file.destroy();
  await rm(dir, { recursive: true, force: true });
});

const fixture =
  <K extends keyof StoreKinds>(db: () => AnyKysely, kind: K) =>
  () =>
    conformanceFixture(db(), kind);

for (const [name, db] of [
  ["sqlite memory", () => memory],
  ["sqlite file", () => file],
] as const) {
  runUserStoreSuite({ name, create: fixture(db, "users") });
  runSessionStoreSuite({ name, create: fixture(db, "sessions") });
  runAccessTokenAllowlistSuite({ name, create: fixture(db, "allowlist") });
  runSingleUseTokenStoreSuite({ name, create: fixture(db, "singleUseTokens") });
  runCooldownStoreSuite({ name, create: fixture(db, "cooldowns") });
  runIdentityStoreSuite({ name, create: fixture(db, "identities") });
  runActivityStoreSuite({ name, create: fixture(db, "activity") });
  runPasskeyStoreSuite({ name, create: fixture(db, "passkeys") });
  runOrganizationStoreSuite({ name, create: fixture(db, "organizations") });
  runApiKeyStoreSuite({ name, create: fixture(db, "apiKeys") });
}
