import { type ChildProcess, type StdioOptions, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// Several processes on one SQLite file (issue 41), as children on the built packages: four
// processes migrating one fresh file at once, and two servers answering bursts of writes.

const CHILD = fileURLToPath(new URL("./sqlite-processes-child.mjs", import.meta.url));
const built = existsSync(fileURLToPath(new URL("../dist/index.js", import.meta.url)));
const ROUNDS = 10;

const dirs: string[] = [];
async function freshFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-sqlite-processes-"));
  dirs.push(dir);
  return join(dir, "auth.db");
}
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Child {
  process: ChildProcess;
  /** Everything the child printed so far. */
  output(): string;
  exited: Promise<number | null>;
}

function startChild(
  config: Record<string, unknown>,
  stdio: StdioOptions = ["ignore", "pipe", "pipe"],
): Child {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(config)], { stdio });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { process: child, output: () => output, exited };
}

/** The error lines (`{"logged": …}`) a server child printed: what its auth logged. */
const loggedErrors = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.startsWith('{"logged"'))
    .map((line) => (JSON.parse(line) as { logged: Record<string, unknown> }).logged);

describe.skipIf(!built)("sqlite: several processes on one file", () => {
  it("migrate - 4 processes migrating one fresh file at once, 10 rounds: every one succeeds", async () => {
    // Four processes stay up; each round, every one is given the same fresh file at once.
    const children = Array.from({ length: 4 }, () => {
      const child = startChild({ mode: "migrate" }, ["pipe", "pipe", "pipe"]);
      const lines: string[] = [];
      let waiting: (() => void) | undefined;
      createInterface({ input: child.process.stdout as Readable }).on("line", (line) => {
        lines.push(line);
        waiting?.();
      });
      // A child that dies answers every later round with its output.
      void child.exited.then((code) => {
        lines.push(`exited ${code}: ${child.output().trim()}`);
        waiting?.();
      });
      const nextLine = async () => {
        while (lines.length === 0) {
          await new Promise<void>((resolve) => {
            waiting = resolve;
          });
        }
        return (lines[0]?.startsWith("exited") ? lines[0] : lines.shift()) as string;
      };
      return { child, nextLine };
    });
    const failures: string[] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const file = await freshFile();
        for (const { child } of children) child.process.stdin?.write(`${file}\n`);
        const answers = await Promise.all(children.map(({ nextLine }) => nextLine()));
        for (const answer of answers) if (answer !== "migrated") failures.push(`round ${round}: ${answer}`);
      }
    } finally {
      for (const { child } of children) child.process.stdin?.end();
      await Promise.all(children.map(({ child }) => child.exited));
    }
    console.log(`4 processes × ${ROUNDS} rounds: ${failures.length} failed\n${failures.join("\n")}`);
    expect(failures).toEqual([]);
  }, 60_000);

  it("register - 50-request bursts over two server processes on one file, 10 rounds: no 500", async () => {
    const file = await freshFile();
    // One after the other: this test is about the requests, not the start.
    const servers: Child[] = [];
    const ports: number[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const server = startChild({ file, mode: "serve" });
        servers.push(server);
        const port = await new Promise<number>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`server did not start: ${server.output()}`)),
            30_000,
          );
          server.process.stdout?.on("data", () => {
            const match = /listening (\d+)/.exec(server.output());
            if (!match) return;
            clearTimeout(timer);
            resolve(Number(match[1]));
          });
          server.exited.then((code) => reject(new Error(`server exited ${code}: ${server.output()}`)));
        });
        ports.push(port);
      }
      const statuses: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        statuses.push(
          ...(await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              fetch(`http://127.0.0.1:${ports[i % 2]}/api/auth/register`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({
                  email: `user-${round}-${i}@example.test`,
                  password: "correct horse battery staple",
                }),
              }).then((response) => response.status),
            ),
          )),
        );
      }
      const errors = servers.flatMap((server) => loggedErrors(server.output()));
      const failed = statuses.filter((status) => status === 500).length;
      console.log(
        `two processes, ${ROUNDS} × 50 registrations: ${failed} × 500; logged: ${JSON.stringify(errors.slice(0, 5))}`,
      );
      expect(failed).toBe(0);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      for (const server of servers) server.process.kill("SIGKILL");
      await Promise.all(servers.map((server) => server.exited));
    }
  }, 60_000);
});
