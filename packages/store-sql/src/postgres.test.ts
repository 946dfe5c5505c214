import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkAllowlistUpgrade } from "./allowlist-upgrade.js";
import { checkApiKeysUpgrade } from "./api-keys-upgrade.js";
import { createSqlMigrator, migrate } from "./migrations.js";
import { checkOrganizationsUpgrade } from "./organizations-upgrade.js";
import { postgresSchema, runSqlStoreSuites, usePostgres } from "./test-databases.js";

// The conformance suites on a real PostgreSQL (PG_URL, the machine's, or one started here), in a
// schema of this file's own that is dropped afterwards.
let server: Awaited<ReturnType<typeof usePostgres>>;
let schema: Awaited<ReturnType<typeof postgresSchema>>;
beforeAll(async () => {
  server = await usePostgres();
  schema = await postgresSchema(server.url);
  await migrate(schema.db);
});
afterAll(async () => {
  await schema?.drop();
  await server?.stop();
});

runSqlStoreSuites("postgres", () => schema.db);

describe("migrate on postgres", () => {
  it("migrate - 0005 moves every session's access token to the allowlist: tokens issued before keep working", async () => {
    await checkAllowlistUpgrade(schema.db);
  });

  it("migrate - 0013 adds organizations and the session's active organization: existing sessions have none", async () => {
    await checkOrganizationsUpgrade(schema.db);
  });

  it("migrate - 0014 adds API keys beside an existing organization: its keys go with it", async () => {
    await checkApiKeysUpgrade(schema.db);
  });

  it("migrate - a schema gets its own tables while another schema of the database has them", async () => {
    // Kysely's Migrator, without a schema, finds its bookkeeping tables in any schema: it then
    // skipped creating this schema's and failed ("relation ... does not exist").
    const other = await postgresSchema(server.url);
    try {
      expect((await migrate(other.db)).length).toBeGreaterThan(0);
      const plain = await createSqlMigrator(other.db).getMigrations();
      expect(plain.every((migration) => migration.executedAt !== undefined)).toBe(true);
      const { rows } = await sql<{ n: string }>`select count(*) as n from portcullis_users`.execute(other.db);
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await other.drop();
    }
  });
});
