import { MARIADB, runImportScenarioOnServer } from "./test-scenario.js";

// The import scenario on MariaDB (store-sql's test server: MYSQL_URL, else root on 127.0.0.1:3306,
// else one started here), in a database of this file's own, dropped at the end.
runImportScenarioOnServer(MARIADB);
