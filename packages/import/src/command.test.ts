import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "./command.js";
import { openTarget } from "./open-target.js";
import { OKTA, scenarioLines, TWO_FACTOR_KEY, tablesNow } from "./test-scenario.js";

// The `portcullis` command: built, run as a child process on a SQLite file, as a user runs it.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

const portcullis = (args: string[]): Promise<Outcome> =>
  run(process.execPath, [CLI, ...args], {
    env: { ...process.env, AUTH_TWO_FACTOR_KEY: TWO_FACTOR_KEY },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

/** The command in this process; `terminal` makes its stderr a fake terminal of that many columns. */
async function inProcess(
  args: string[],
  terminal?: { columns: number },
  env: Record<string, string> = {},
): Promise<Outcome> {
  const outcome = { code: 0, stdout: "", stderr: "" };
  outcome.code = await runCommand(
    args,
    {
      stdout: (text) => {
        outcome.stdout += text;
      },
      stderr: (text) => {
        outcome.stderr += text;
      },
      ...(terminal && { isTTY: true, columns: terminal.columns }),
    },
    { AUTH_TWO_FACTOR_KEY: TWO_FACTOR_KEY, ...env },
  );
  return outcome;
}

/** The tables of a target, by name. */
async function tableNames(url: string): Promise<string[]> {
  const opened = await openTarget(url);
  try {
    return (await opened.db.introspection.getTables()).map((table) => table.name);
  } finally {
    await opened.close();
  }
}

describe("portcullis import", () => {
  let dir: string;
  let source: string;
  let target: string;

  beforeAll(async () => {
    // The package's dist, as its `test` script builds it (only when its inputs changed).
    await run(process.execPath, ["scripts/build-changed.mjs", "packages/import"], { cwd: ROOT });
    dir = await mkdtemp(join(tmpdir(), "portcullis-import-cli-"));
    source = join(dir, "users.jsonl");
    target = `sqlite:${join(dir, "target.db")}`;
    await writeFile(source, (await scenarioLines()).join("\r\n"));
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const args = (...more: string[]) => [
    "import",
    "--from",
    "jsonl",
    "--source",
    source,
    "--target",
    target,
    "--issuer",
    `okta=${OKTA}`,
    ...more,
  ];

  it("import - bad arguments, a missing file or a target that does not answer exit 2 with a message", async () => {
    expect(await inProcess(["import", "--from", "jsonl", "--source", source])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--source and --target are required"),
    });
    expect(
      await inProcess(["import", "--from", "auth0", "--source", source, "--target", target]),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--from must be one of jsonl, better-auth, authjs, supabase"),
    });
    expect(await inProcess(args("--better-auth-secret", "s"))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--better-auth-secret goes with --from better-auth"),
    });
    const emptyDatabase = `sqlite:${join(dir, "empty.db")}`;
    for (const [from, refusal] of [
      ["authjs", "Auth.js"],
      ["supabase", "postgres:// connection string"],
    ] as const)
      expect(
        await inProcess(["import", "--from", from, "--source", emptyDatabase, "--target", target]),
      ).toMatchObject({ code: 2, stderr: expect.stringContaining(refusal) });
    expect(
      await inProcess([
        "import",
        "--from",
        "better-auth",
        "--source",
        "postgres://postgres@127.0.0.1:1/x",
        "--target",
        target,
      ]),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("the source database does not answer") });
    expect(await inProcess(["import", "--from", "jsonl", "--bogus"])).toMatchObject({ code: 2, stdout: "" });
    expect(
      await inProcess([
        "import",
        "--from",
        "jsonl",
        "--source",
        join(dir, "absent.jsonl"),
        "--target",
        target,
      ]),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("no such readable file") });
    expect(await inProcess(args("--issuer", "okta"))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("expected <provider>=<issuer URL>"),
    });
    const unreachable = [
      "import",
      "--from",
      "jsonl",
      "--source",
      source,
      "--target",
      "postgres://postgres@127.0.0.1:1/none",
    ];
    expect(await inProcess(unreachable)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("the target does not answer"),
    });
    expect(
      await inProcess(["import", "--from", "jsonl", "--source", source, "--target", "redis://127.0.0.1"]),
    ).toMatchObject({ code: 2 });
  }, 30_000);

  // The target here has no account before the import, so line 9 is imported too.
  it("import - the built command imports, prints progress to stderr and the summary to stdout, exits 0", async () => {
    const first = await portcullis(args());
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("done: 13 rows, 5 imported, 8 skipped\n");
    expect(first.stdout).toContain("13 rows read, imported 5 accounts (2 provider links), skipped 8\n");
    expect(first.stdout).toContain("  skipped passkey_taken: 1 (lines 13)\n");
    expect(first.stdout).toContain("  skipped duplicate_email: 1 (lines 5)\n");
    expect(first.stdout).toContain("  skipped identity_taken: 1 (lines 10)\n");
  }, 60_000);

  it("import - --dry-run and a second run change nothing", async () => {
    const opened = await openTarget(target);
    try {
      const before = await tablesNow(opened.db);
      const dry = await portcullis(args("--dry-run"));
      expect(dry).toMatchObject({
        code: 0,
        stdout: expect.stringContaining("dry run: 13 rows read, would import 0 accounts"),
      });
      const again = await portcullis(args());
      expect(again).toMatchObject({
        code: 0,
        stdout: expect.stringContaining("skipped already_imported: 5 (lines 1, 2, 7, 9, 11)"),
      });
      expect(await tablesNow(opened.db)).toEqual(before);
    } finally {
      await opened.close();
    }
  }, 60_000);

  it("import - a dry run against a target without Portcullis's tables creates nothing and exits 2", async () => {
    const fresh = `sqlite:${join(dir, "fresh.db")}`;
    const outcome = await inProcess([
      "import",
      "--from",
      "jsonl",
      "--source",
      source,
      "--target",
      fresh,
      "--dry-run",
    ]);
    expect(outcome).toMatchObject({ code: 2, stderr: expect.stringContaining("no Portcullis tables yet") });
    const opened = await openTarget(fresh);
    expect(await opened.db.introspection.getTables()).toEqual([]);
    await opened.close();
  });

  it("import - on a terminal, progress is one line redrawn in place, with a bar over the file's rows, kept at the end", async () => {
    const terminal = `sqlite:${join(dir, "terminal.db")}`;
    const outcome = await inProcess(
      ["import", "--from", "jsonl", "--source", source, "--target", terminal, "--issuer", `okta=${OKTA}`],
      { columns: 120 },
    );
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain("13 rows read, imported 5 accounts (2 provider links), skipped 8\n");
    // 13 rows, under the 1,000 a terminal's reports come after: the last report only, drawn in place.
    expect(outcome.stderr.startsWith("\r")).toBe(true);
    expect(outcome.stderr.endsWith("\x1b[K\n")).toBe(true);
    expect(outcome.stderr.slice(1, -4)).toMatch(
      /^\[#{30}\] 100% {2}13\/13 rows {2}[\d,]+ rows\/s {2}5 imported {2}8 skipped {2}\d+s elapsed$/,
    );
    // TERM=dumb: no erasing, so the plain lines.
    const dumb = await inProcess(
      ["import", "--from", "jsonl", "--source", source, "--target", terminal, "--issuer", `okta=${OKTA}`],
      { columns: 120 },
      { TERM: "dumb" },
    );
    expect(dumb).toMatchObject({ code: 0, stderr: "done: 13 rows, 0 imported, 13 skipped\n" });
  }, 30_000);

  it("import - --drop-ledger drops the import ledger after the cut-over, keeps the accounts, says what it did", async () => {
    const cutOver = `sqlite:${join(dir, "cut-over.db")}`;
    expect((await inProcess(args().map((arg) => (arg === target ? cutOver : arg)))).code).toBe(0);
    expect(await tableNames(cutOver)).toContain("portcullis_import_ledger");
    const dropped = await inProcess(["import", "--drop-ledger", "--target", cutOver]);
    expect(dropped).toEqual({
      code: 0,
      stdout:
        "dropped the import ledger (portcullis_import_ledger); the imported accounts stay, and an import run again would no longer know them as its own\n",
      stderr: "",
    });
    const tables = await tableNames(cutOver);
    expect(tables).not.toContain("portcullis_import_ledger");
    expect(tables).toContain("portcullis_users");
    const opened = await openTarget(cutOver);
    const users = await opened.db.selectFrom("portcullis_users").select("email").execute();
    await opened.close();
    expect(users).toHaveLength(5);
    expect(await inProcess(["import", "--drop-ledger", "--target", cutOver])).toEqual({
      code: 0,
      stdout: "the target has no import ledger (portcullis_import_ledger): nothing to drop\n",
      stderr: "",
    });
  }, 30_000);

  it("import - --drop-ledger with --source or other import options, or without --target, exits 2 and drops nothing", async () => {
    const kept = `sqlite:${join(dir, "kept.db")}`;
    expect((await inProcess(args().map((arg) => (arg === target ? kept : arg)))).code).toBe(0);
    const withSource = await inProcess(["import", "--drop-ledger", "--source", source, "--target", kept]);
    expect(withSource).toMatchObject({
      code: 2,
      stdout: "",
      stderr: expect.stringContaining("--drop-ledger imports nothing and takes no --source"),
    });
    expect(
      await inProcess(["import", "--drop-ledger", "--dry-run", "--from", "jsonl", "--target", kept]),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--drop-ledger takes only --target, not --from, --dry-run"),
    });
    expect(await inProcess(["import", "--drop-ledger"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--drop-ledger needs --target"),
    });
    expect(await tableNames(kept)).toContain("portcullis_import_ledger");
    expect(
      await inProcess(["import", "--drop-ledger", "--target", "postgres://postgres@127.0.0.1:1/none"]),
    ).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("the target does not answer"),
    });
  }, 30_000);
});
