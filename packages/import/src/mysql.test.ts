import { createConnection } from "mysql2/promise";
import { useMysql } from "../../store-sql/src/test-mysql.js";
import { runImportScenarioOnServer } from "./test-scenario.js";

// The import scenario on MariaDB (store-sql's test server: MYSQL_URL, else root on 127.0.0.1:3306,
// else one started here), in a database of this file's own, dropped at the end.
runImportScenarioOnServer("MariaDB", useMysql, async (url, statement) => {
  const admin = await createConnection({ uri: url });
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
});
