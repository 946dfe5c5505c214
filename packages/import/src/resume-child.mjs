// The child process of resume.test.ts: the built package imports a JSON-lines file into a
// PostgreSQL database in batches of 500, printing "rows <n>" after each 1,000 rows; the test
// kills it with SIGKILL mid-run. Arguments: the database URL, the file.
import { importAccounts, jsonlSource, openTarget } from "../dist/index.js";

const [url, file] = process.argv.slice(2);
const target = await openTarget(url);
await importAccounts({
  source: jsonlSource(file),
  target: { db: target.db },
  batchSize: 500,
  progressEveryRows: 1_000,
  onProgress: ({ rows }) => process.stdout.write(`rows ${rows}\n`),
});
await target.close();
process.stdout.write("finished\n");
