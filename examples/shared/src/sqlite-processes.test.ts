import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@portcullis/testing";
import { afterAll, describe, expect, it } from "vitest";

// The built example servers as processes on one SQLite file (issue 41): four started at once on a
// fresh file all start (the first switches it to WAL and migrates it while the others wait), and
// a file that cannot be used ends the process with a one-line error, never a stack trace.

const ENTRIES = ["express", "fastify", "express", "fastify"].map(
  (name) => new URL(`../../${name}/dist/server.js`, import.meta.url).pathname,
);
const built = ENTRIES.every((entry) => existsSync(entry));
const ROUNDS = 2;
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startServer(entry: string, port: number, databaseUrl: string): Started {
  const child = spawn(process.execPath, [entry], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "development",
      AUTH_SECRET: "sqlite-processes-secret-OX_XOKfiJNoLIzQphN0jYb9Hbovc4e08qSgHj03K15Y",
      DATABASE_URL: databaseUrl,
      REDIS_URL: "",
      LOGIN_ALERTS: "false",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Whether the server at `port` answers `GET /` before it exits or 45 s pass. */
async function comesUp(port: number, server: Started): Promise<boolean> {
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + 45_000;
  while (!exited && Date.now() < deadline) {
    const status = await fetch(`http://127.0.0.1:${port}/`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function stop(servers: Started[]): Promise<void> {
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
  }
  await Promise.all(servers.map((server) => server.exited));
}

/** A stack trace's frame line: `    at fn (file:line:col)`. */
const STACK_FRAME = /^\s+at .+/m;

describe.skipIf(!built)("example servers on one SQLite file", () => {
  it("start - four servers started at once on one fresh file all start, 2 rounds", async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const dir = await mkdtemp(join(tmpdir(), "portcullis-example-sqlite-"));
      dirs.push(dir);
      const url = `sqlite:${join(dir, "auth.db")}`;
      const ports = await Promise.all(ENTRIES.map(() => freePort()));
      const servers = ENTRIES.map((entry, i) => startServer(entry, ports[i] as number, url));
      try {
        const up = await Promise.all(servers.map((server, i) => comesUp(ports[i] as number, server)));
        up.forEach((ok, i) => {
          if (!ok) failures.push(`round ${round}, server ${i}: ${servers[i]?.output().trim().slice(0, 800)}`);
        });
      } finally {
        await stop(servers);
      }
    }
    console.log(
      `4 example servers × ${ROUNDS} rounds: ${failures.length} did not start\n${failures.join("\n")}`,
    );
    expect(failures).toEqual([]);
  }, 60_000);

  it("start - an unusable SQLite path ends the process with a one-line error, no stack trace", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-example-sqlite-"));
    dirs.push(dir);
    // A path under a regular file: no directory can be made there.
    await writeFile(join(dir, "not-a-directory"), "");
    const server = startServer(
      ENTRIES[0] as string,
      await freePort(),
      `sqlite:${join(dir, "not-a-directory", "auth.db")}`,
    );
    const code = await server.exited;
    expect(code).toBe(1);
    expect(server.output()).toContain("Cannot start: DATABASE_URL cannot be used");
    expect(server.output()).not.toMatch(STACK_FRAME);
  }, 30_000);
});
