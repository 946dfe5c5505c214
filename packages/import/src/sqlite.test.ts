import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores } from "@portcullis/store-sql";
import { openTarget } from "./open-target.js";
import { runImportScenario } from "./test-scenario.js";

// The import scenario on a SQLite file, opened from its URL as the command opens it.
runImportScenario("SQLite", async () => {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-import-sqlite-"));
  const target = await openTarget(`sqlite:${join(dir, "target.db")}`);
  await createSqlStores({ db: target.db }).migrate();
  return {
    db: target.db,
    async close() {
      await target.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
