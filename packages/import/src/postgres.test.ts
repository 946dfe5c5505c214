import pg from "pg";
import { usePostgres } from "../../store-sql/src/test-databases.js";
import { runImportScenarioOnServer } from "./test-scenario.js";

// The import scenario on PostgreSQL (store-sql's test server: PG_URL, else 127.0.0.1:5432, else
// one started here), in a database of this file's own, dropped at the end.
runImportScenarioOnServer(
  "PostgreSQL",
  usePostgres,
  async (url, statement) => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  },
  " with (force)",
);
