// The hot paths of the core's HTTP handler make no rejection that gets its handler late: Node
// tracks each such rejection until its handler comes, and on the verification 429 that cost more
// than the rest of the answer (13.5 µs per request with it, 7.5 without, on Node 20;
// bench/README.md). Not timed: the child counts them through Node's own hook
// (late-rejections-child.mjs, on the built packages).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const CHILD = fileURLToPath(new URL("./late-rejections-child.mjs", import.meta.url));

it("hot paths - no rejection gets its handler after it was made", async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--expose-internals", "--no-warnings", CHILD],
    {
      timeout: 60_000,
    },
  );
  const { rounds, paths } = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as {
    rounds: number;
    paths: Record<string, { count: number; where: string[] }>;
  };
  const { "control: a promise rejected before its handler": control, ...measured } = paths;
  expect(control?.count).toBe(rounds);
  expect(Object.keys(measured).length).toBeGreaterThanOrEqual(8);
  for (const [path, { count, where }] of Object.entries(measured))
    expect({ path, count, where }).toEqual({ path, count: 0, where: [] });
}, 90_000);
