import { postgresDatabase, usePostgres } from "../../../packages/store-sql/src/test-databases.js";
import { runTwoInstanceTests } from "./two-instances.js";

let server: Awaited<ReturnType<typeof usePostgres>>;
let database: Awaited<ReturnType<typeof postgresDatabase>>;

runTwoInstanceTests("two example instances sharing one PostgreSQL, without Redis", {
  async setup() {
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    return { DATABASE_URL: database.url, REDIS_URL: "" };
  },
  async teardown() {
    await database?.drop();
    await server?.stop();
  },
});
