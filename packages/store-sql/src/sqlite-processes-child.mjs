// The child process of sqlite-processes.test.ts, on the built packages, over SQLite files opened
// as the docs say (libsql, store-sql's dialect, WAL). `mode: "migrate"`: migrates each file named
// on stdin, one line each, and prints "migrated" or "failed <error>". `mode: "serve"`: an
// Express server with cheap argon2 parameters; prints "listening <port>", and every error the
// auth logs as one JSON line `{"logged": …}` carrying the error's `code` (SQLITE_BUSY…).
import { createInterface } from "node:readline";
import { Kysely } from "kysely";
import Database from "libsql";
import { createSqliteDialect, createSqlStores } from "../dist/index.js";

const { file, mode } = JSON.parse(process.argv[2] ?? "{}");
const described = (value) =>
  value instanceof Error ? { name: value.name, message: value.message, code: value.code } : value;

/** Opens `file` as the docs say: libsql, store-sql's dialect, WAL. */
const open = (file) =>
  new Kysely({ dialect: createSqliteDialect({ database: new Database(file), journalMode: "wal" }) });

if (mode === "migrate") {
  // One fresh file per line on stdin, migrated as soon as it arrives (the test sends it to every
  // child at once); "migrated" or "failed <error>" on stdout for each.
  for await (const line of createInterface({ input: process.stdin })) {
    let db;
    try {
      db = open(line);
      await createSqlStores({ db }).migrate();
      process.stdout.write("migrated\n");
    } catch (error) {
      process.stdout.write(
        `failed ${JSON.stringify({ error: described(error), cause: described(error?.cause) })}\n`,
      );
    } finally {
      await db?.destroy().catch(() => {});
    }
  }
} else {
  const [{ createAuthRouter }, { createArgon2Hasher, createAuth }, { default: express }] = await Promise.all([
    import("@portcullis/adapter-express"),
    import("@portcullis/core"),
    import("express"),
  ]);
  const stores = createSqlStores({ db: open(file) });
  await stores.migrate();
  const logError = (object, msg) => {
    const entry = Object.fromEntries(Object.entries(object).map(([key, value]) => [key, described(value)]));
    process.stdout.write(`${JSON.stringify({ logged: { ...entry, msg } })}\n`);
  };
  const auth = createAuth({
    secret: "sqlite-processes-secret-Vb7nQ2xLk9RtYp4WzM1cH8sJd3FgA6uEo0iKqZ5y",
    stores,
    appOrigin: "https://app.example.test",
    logger: { debug() {}, info() {}, warn() {}, error: logError },
    mailer: { send: async () => {} },
    email: { enabled: true, loginAlerts: false },
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  });
  await auth.ready();
  const app = express();
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1", () =>
    process.stdout.write(`listening ${server.address().port}\n`),
  );
}
