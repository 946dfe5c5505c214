import { randomBytes } from "node:crypto";
import { createSqlStores } from "@portcullis/store-sql";
import { createConnection } from "mysql2/promise";
import { useMysql } from "../../store-sql/src/test-mysql.js";
import { openTarget } from "./open-target.js";
import { runImportScenario } from "./test-scenario.js";

// The import scenario on MariaDB (store-sql's test server: MYSQL_URL, else root on 127.0.0.1:3306,
// else one started here), in a database of this file's own, created with a random name and
// dropped at the end.

async function onAdmin(server: string, statement: string): Promise<void> {
  const admin = await createConnection({ uri: server });
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

runImportScenario("MariaDB", async () => {
  const server = await useMysql();
  if (server === null) throw new Error("no MariaDB/MySQL server for the import scenario (see useMysql)");
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
      await onAdmin(server.url, `drop database if exists ${name}`);
      await server.stop();
    },
  };
});
