// Reading the workspace's source for the tests of this folder.
import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, ending in `/`. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Every `.ts`, `.mts` and `.mjs` file below `dir` (a path from the root), tests included, but not in node_modules or dist; by path from the root. */
export function readSourceFiles(dir: string, files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(`${ROOT}${dir}`, { withFileTypes: true })) {
    const path = posix.join(dir, entry.name);
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    if (entry.isDirectory()) readSourceFiles(path, files);
    else if (/\.(ts|mts|mjs)$/.test(entry.name)) files.set(path, readFileSync(`${ROOT}${path}`, "utf8"));
  }
  return files;
}

/** The folders of `group` (`packages` → `packages/core`, …). */
export const foldersOf = (group: string) =>
  readdirSync(`${ROOT}${group}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`);
