import { POSTGRES, runImportScenarioOnServer } from "./test-scenario.js";

// The import scenario on PostgreSQL (store-sql's test server: PG_URL, else 127.0.0.1:5432, else
// one started here), in a database of this file's own, dropped at the end.
runImportScenarioOnServer(POSTGRES);
