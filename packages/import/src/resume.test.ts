import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSqlStores } from "@portcullis/store-sql";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importAccounts } from "./import-accounts.js";
import { jsonlSource } from "./jsonl-source.js";
import { type OpenedTarget, openTarget } from "./open-target.js";
import { type OwnDatabase, ownDatabase, POSTGRES } from "./test-scenario.js";

// A run killed with SIGKILL mid-way (a child process running the built package on PostgreSQL),
// then a second run: every account exactly once, none half-written, the counts add up.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CHILD = fileURLToPath(new URL("./resume-child.mjs", import.meta.url));
const ROWS = 20_000;
const HASH = "$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";

const line = (n: number) =>
  JSON.stringify({
    id: `r${n}`,
    email: `resume${n}@example.test`,
    passwordHash: HASH,
    ...(n % 2 === 0 ? { identities: [{ provider: "github", subject: String(500_000 + n) }] } : {}),
  });

/** Runs the child until it has reported `atLeast` rows, then kills it with SIGKILL; resolves the signal it died of. */
function killMidRun(
  url: string,
  file: string,
  atLeast: number,
): Promise<{ signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, url, file], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const rows = Math.max(0, ...[...output.matchAll(/rows (\d+)/g)].map((match) => Number(match[1])));
      if (rows >= atLeast) child.kill("SIGKILL");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => resolve({ signal, output }));
  });
}

describe("importAccounts - resumes after a kill", () => {
  let dir: string;
  let file: string;
  let database: OwnDatabase | undefined;
  let url: string;
  let target: OpenedTarget;

  beforeAll(async () => {
    await promisify(execFile)(process.execPath, ["scripts/build-changed.mjs", "packages/import"], {
      cwd: ROOT,
    });
    dir = await mkdtemp(join(tmpdir(), "portcullis-resume-"));
    file = join(dir, "users.jsonl");
    await writeFile(file, `${Array.from({ length: ROWS }, (_, at) => line(at + 1)).join("\n")}\n`);
    database = await ownDatabase(POSTGRES, "portcullis_resume");
    url = database.url;
    target = await openTarget(url);
    await createSqlStores({ db: target.db }).migrate();
  }, 300_000);
  afterAll(async () => {
    await target?.close();
    await database?.remove();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute(target.db)).rows[0]?.n);

  it("importAccounts - a run killed mid-way leaves whole accounts; the next run imports the rest, each exactly once", async () => {
    const killed = await killMidRun(url, file, 4_000);
    expect(killed.signal, killed.output).toBe("SIGKILL");
    const committed = await count(sql`select count(*) as n from portcullis_import_ledger`);
    expect(committed).toBeGreaterThanOrEqual(4_000);
    expect(committed).toBeLessThan(ROWS);
    expect(committed % 500).toBe(0);
    const summary = await importAccounts({ source: jsonlSource(file), target: { db: target.db } });
    expect(summary).toMatchObject({ rows: ROWS, imported: ROWS - committed, updated: 0 });
    expect(summary.skipped).toEqual({
      already_imported: { count: committed, lines: Array.from({ length: 20 }, (_, at) => at + 1) },
    });
    expect(await count(sql`select count(*) as n from portcullis_users`)).toBe(ROWS);
    expect(await count(sql`select count(distinct email) as n from portcullis_users`)).toBe(ROWS);
    expect(await count(sql`select count(*) as n from portcullis_identities`)).toBe(ROWS / 2);
    // Every user has its ledger entry, every ledger entry its user, every even row its link.
    expect(
      await count(sql`select count(*) as n from portcullis_users u
        join portcullis_import_ledger l on l.user_id = u.id and l.source_id = 'r' || substr(u.email, 7, position('@' in u.email) - 7)`),
    ).toBe(ROWS);
    expect(
      await count(sql`select count(*) as n from portcullis_identities i
        join portcullis_users u on u.id = i.user_id
        where i.subject::int - 500000 = substr(u.email, 7, position('@' in u.email) - 7)::int`),
    ).toBe(ROWS / 2);
  }, 300_000);
});
