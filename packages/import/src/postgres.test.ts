import { randomBytes } from "node:crypto";
import { createSqlStores } from "@portcullis/store-sql";
import pg from "pg";
import { usePostgres } from "../../store-sql/src/test-databases.js";
import { openTarget } from "./open-target.js";
import { runImportScenario } from "./test-scenario.js";

// The import scenario on PostgreSQL (store-sql's test server: PG_URL, else 127.0.0.1:5432, else
// one started here), in a database of this file's own, created with a random name and dropped at
// the end.

async function onAdmin(server: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

runImportScenario("PostgreSQL", async () => {
  const server = await usePostgres();
  const name = `portcullis_import_${randomBytes(6).toString("hex")}`;
  await onAdmin(server.url, `create database ${name}`);
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const target = await openTarget(url.toString());
  await createSqlStores({ db: target.db }).migrate();
  return {
    db: target.db,
    async close() {
      await target.close();
      await onAdmin(server.url, `drop database if exists ${name} with (force)`);
      await server.stop();
    },
  };
});
