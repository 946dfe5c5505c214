import { runOrganizationsAdapterSuite } from "@portcullis/testing";
import { expressPostgresAndFastifySqlite } from "./test-servers.js";

// Organizations through both Node adapters with every store in SQL (each test's own tables):
// Express on PostgreSQL, Fastify on SQLite. Concurrent accepts, slugs and demotions meet the
// databases' own locking here.
const { onPostgres, onSqlite } = expressPostgresAndFastifySqlite();

runOrganizationsAdapterSuite(onPostgres);
runOrganizationsAdapterSuite(onSqlite);
