// Code comments cite the repository's own docs (docs/*.md, a package's README), never a file a
// reader of the repository does not have: the project's working contract and style notes live
// outside it, so a citation of them is a dead end. A cited docs file must exist.
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { foldersOf, ROOT, readSourceFiles } from "./source-files.js";

/** Names of files outside the repository that comments once cited. */
const OUTSIDE = /\b(CONTRACT(\.md)?\s*§|CONTRACT\.md|SECURITY\.md|STYLE\.md|shared\/[A-Z]+\.md)/;

/** Whether `doc` is there, from the repository's root or from the package or example of `path`. */
const docExists = (path: string, doc: string) =>
  existsSync(`${ROOT}${doc}`) || existsSync(`${ROOT}${path.split("/").slice(0, 2).join("/")}/${doc}`);

/** `path:line: text` for each line of `source` citing a file outside the repository or a docs file that is not there. */
function badCitations(path: string, source: string) {
  return source.split("\n").flatMap((line, index) => {
    const where = `${path}:${index + 1}: ${line.trim()}`;
    if (OUTSIDE.test(line)) return [where];
    const missing = [...line.matchAll(/\bdocs\/[a-z0-9-]+\.md\b/g)].some(([doc]) => !docExists(path, doc));
    return missing ? [where] : [];
  });
}

describe("cited files", () => {
  it("badCitations - no source file of a package or an example cites a file outside the repository or a missing doc", () => {
    const files = [...foldersOf("packages"), ...foldersOf("examples")].flatMap((folder) => [
      ...readSourceFiles(folder),
    ]);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(([path, text]) => badCitations(path, text))).toEqual([]);
  });

  it("badCitations - catches a planted contract citation and a missing doc; the repository's docs pass", () => {
    const planted = [
      "/** Self-service (CONTRACT §11). */",
      "// see docs/no-such-page.md",
      "/** Self-service (docs/concepts.md). */",
    ].join("\n");
    expect(badCitations("packages/core/planted.ts", planted)).toEqual([
      "packages/core/planted.ts:1: /** Self-service (CONTRACT §11). */",
      "packages/core/planted.ts:2: // see docs/no-such-page.md",
    ]);
  });
});
