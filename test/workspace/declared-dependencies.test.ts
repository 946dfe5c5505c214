// Every package and example imports only what its own package.json declares (or a workspace-wide
// tool of the root package.json: vitest, typescript, tsup). pnpm resolves an undeclared workspace
// package or root tool anyway, by walking up to the root's node_modules, so only a test notices.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const declared = (pkg: Manifest) =>
  new Set([
    pkg.name,
    ...Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies }),
  ]);

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); null for relative and built-in ones. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return null;
  if (builtinModules.includes(specifier)) return null;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? null);
}

/** Every `.ts`/`.js` file below `dir`, but not in node_modules or dist. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** `file: package` for each import of a package that neither `own` (`dir`'s package.json) nor `allowed` declares. */
function undeclaredImports(
  dir: string,
  allowed: ReadonlySet<string>,
  own: ReadonlySet<string> = declared(manifest(dir)),
): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles(dir)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      const name = packageOf(fileName);
      if (name && !own.has(name) && !allowed.has(name)) problems.push(`${relative(ROOT, file)}: ${name}`);
    }
  }
  return problems;
}

const WORKSPACE_TOOLS = new Set(["vitest", "typescript", "tsup"]);
const packageDirs = ["packages", "examples"].flatMap((group) =>
  readdirSync(join(ROOT, group), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(ROOT, group, entry.name)),
);

describe("declared dependencies", () => {
  it("imports - every package and example imports only what its package.json declares (root tools aside)", () => {
    const rootTools = new Set([...declared(manifest(ROOT))].filter((name) => WORKSPACE_TOOLS.has(name)));
    expect(packageDirs.length).toBeGreaterThan(8);
    expect(packageDirs.flatMap((dir) => undeclaredImports(dir, rootTools))).toEqual([]);
  });

  it("imports - an undeclared import is caught, in a test file too (core's tests using @portcullis/testing)", () => {
    const core = join(ROOT, "packages", "core");
    const own = declared(manifest(core));
    own.delete("@portcullis/testing");
    const problems = undeclaredImports(core, new Set(), own);
    expect(problems).toContain("packages/core/src/test-support.ts: @portcullis/testing");
    expect(problems).toContain("packages/core/src/emails/notices.test.ts: @portcullis/testing");
    expect(problems).toContain("packages/core/src/errors.test.ts: vitest");
    expect(packageOf("@portcullis/testing/sub")).toBe("@portcullis/testing");
    expect(packageOf("node:fs")).toBeNull();
    expect(packageOf("fs/promises")).toBeNull();
    expect(packageOf("./x.js")).toBeNull();
  });

  it("workspace - the only dependency cycle is the core's dev dependencies on the packages its tests use", () => {
    const manifests = [ROOT, ...packageDirs].map(manifest);
    const names = new Set(manifests.map((pkg) => pkg.name));
    const graph = new Map(
      manifests.map((pkg) => {
        const ownTests = pkg.name === "@portcullis/core" ? {} : pkg.devDependencies;
        const edges = Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...ownTests });
        return [pkg.name, edges.filter((name) => names.has(name))] as const;
      }),
    );
    const done = new Set<string>();
    const visiting: string[] = [];
    const cycles: string[] = [];
    const visit = (name: string) => {
      if (visiting.includes(name)) return void cycles.push([...visiting, name].join(" → "));
      if (done.has(name)) return;
      visiting.push(name);
      for (const next of graph.get(name) ?? []) visit(next);
      visiting.pop();
      done.add(name);
    };
    for (const name of graph.keys()) visit(name);
    expect(cycles).toEqual([]);
    // The cycle that pnpm-workspace.yaml's ignoreWorkspaceCycles allows is there, and only in devDependencies.
    const core = manifests.find((pkg) => pkg.name === "@portcullis/core");
    expect(Object.keys(core?.devDependencies ?? {})).toEqual(
      expect.arrayContaining(["@portcullis/store-memory", "@portcullis/testing"]),
    );
    expect(
      Object.keys({ ...core?.dependencies, ...core?.peerDependencies }).some((name) => names.has(name)),
    ).toBe(false);
  });
});
