import { runApiKeysAdapterSuite, runApiKeysInstancesSuite } from "@portcullis/testing";
import { expressPostgresAndFastifySqlite } from "./test-servers.js";

// API keys through both Node adapters with every store in SQL (each test's own tables): Express
// on PostgreSQL, Fastify on SQLite. Concurrent deletes and a key's request counter meet the
// databases' own locking here; the organizations' keys go with them by the store's own delete.
const { onPostgres, onSqlite } = expressPostgresAndFastifySqlite();

runApiKeysAdapterSuite(onPostgres);
runApiKeysAdapterSuite(onSqlite);
// Two instances over one PostgreSQL schema: a delete through one is refused by the other at once.
runApiKeysInstancesSuite(onPostgres);
