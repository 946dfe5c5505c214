// Every package and example has a `test` script (`pnpm --filter <name> test`): it builds what
// changed (scripts/build-changed.mjs: that folder and the workspace packages it uses, so tests that
// read a dist find it current) and runs vitest with the root configuration on that folder alone.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { foldersOf, ROOT, readSourceFiles } from "./source-files.js";

const folders = [...foldersOf("packages"), ...foldersOf("examples")];

/** The script each folder's package.json must have: the trailing `/` keeps `packages/a` from matching `packages/ab`. */
const expected = (folder: string) =>
  `node ../../scripts/build-changed.mjs . && vitest run --root ../.. ${folder}/`;

describe("test scripts", () => {
  it.each(folders)(
    "%s - its test script builds what changed, then runs this folder's tests alone",
    (folder) => {
      const manifest = JSON.parse(readFileSync(`${ROOT}${folder}/package.json`, "utf8")) as {
        scripts?: Record<string, string>;
      };
      expect(manifest.scripts?.test).toBe(expected(folder));
      // `vitest run` fails when no file matches its filter: the folder holds tests.
      expect([...readSourceFiles(folder).keys()].some((path) => path.endsWith(".test.ts"))).toBe(true);
    },
  );
});
