// The client's own copy of the core's types (src/api-types.ts, what a front-end without
// @portcullis/core gets) is what scripts/api-types.mjs makes of the core's current types: a change
// of the core's types fails here until the file is generated again. (types.test.ts holds the
// routes built on it against the core's use cases, type by type.)
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/api-types.mjs", import.meta.url));
const FILE = fileURLToPath(new URL("./api-types.ts", import.meta.url));

describe("api types", () => {
  it("api-types.ts - is what the generator makes of the core's types (run `node packages/client/scripts/api-types.mjs` when this fails)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [SCRIPT, "--print"], {
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout.length).toBeGreaterThan(1000);
    expect(await readFile(FILE, "utf8")).toBe(stdout);
  }, 120_000);

  it("api-types.ts - imports nothing: the published types need no other package", async () => {
    const text = await readFile(FILE, "utf8");
    expect(text).not.toMatch(/\bimport\b|\brequire\(/);
    expect(text).toMatch(/^export interface User (extends \w+ )?\{$/m);
    expect(text).toContain("export type ErrorCode =");
  });
});
