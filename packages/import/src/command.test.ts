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

async function inProcess(args: string[]): Promise<Outcome> {
  const outcome = { code: 0, stdout: "", stderr: "" };
  outcome.code = await runCommand(args, {
    stdout: (text) => {
      outcome.stdout += text;
    },
    stderr: (text) => {
      outcome.stderr += text;
    },
  });
  return outcome;
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
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("--from must be jsonl") });
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
});
