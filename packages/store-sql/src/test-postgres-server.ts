import { afterAll, beforeAll } from "vitest";
import { startPostgresServer } from "./test-databases.js";

/**
 * Test support (not part of the package's exports): a PostgreSQL server of the test's own
 * (`startPostgresServer`) for the tests of a describe block, started before them, resumed
 * (SIGCONT, in case a test left it frozen) and removed after them. The methods may be passed
 * around unbound.
 */
export function postgresServerForSuite() {
  let server: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.signal("SIGCONT").catch(() => {});
    await server?.destroy();
  });
  const started = () => {
    if (!server) throw new Error("postgresServerForSuite: the server is started in beforeAll");
    return server;
  };
  return {
    get url() {
      return started().url;
    },
    start: () => started().start(),
    stop: () => started().stop(),
    signal: (signal: "SIGSTOP" | "SIGCONT") => started().signal(signal),
  };
}
