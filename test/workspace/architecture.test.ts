// The one-way rules and the placement of docs/architecture.md, checked against the code. The
// layers and the packages are read from the doc's own tables, so the doc cannot drift from what
// is checked; each rule is shown catching a violation planted in a copy of the source.
import { readdirSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOC = readFileSync(`${ROOT}docs/architecture.md`, "utf8");
const CORE = "packages/core/src/";

/** Source files by path from the repository root. */
type Files = ReadonlyMap<string, string>;

/** Every source file below `dir` (a path from the root), tests included, but not in node_modules or dist. */
function readFiles(dir: string, files = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(`${ROOT}${dir}`, { withFileTypes: true })) {
    const path = posix.join(dir, entry.name);
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    if (entry.isDirectory()) readFiles(path, files);
    else if (/\.(ts|mts|mjs)$/.test(entry.name)) files.set(path, readFileSync(`${ROOT}${path}`, "utf8"));
  }
  return files;
}

const dirsOf = (group: string) =>
  readdirSync(`${ROOT}${group}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`);

/** Workspace package names by folder (`packages/core` → `@portcullis/core`). */
const WORKSPACE: ReadonlyMap<string, string> = new Map(
  [...dirsOf("packages"), ...dirsOf("examples")].map((dir) => [
    dir,
    (JSON.parse(readFileSync(`${ROOT}${dir}/package.json`, "utf8")) as { name: string }).name,
  ]),
);

const readWorkspace = () => {
  const files = new Map<string, string>();
  for (const dir of WORKSPACE.keys()) readFiles(dir, files);
  return files;
};

const isTest = (path: string) => /\.test\.ts$/.test(path);

/** What a file imports (static, type-only, re-exported, dynamic), as the TypeScript scanner finds it. */
const specifiersOf = (source: string) =>
  ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);

/** A relative specifier as a path from the root (`./x.js` → `…/x.ts`); null for a package name. */
const resolve = (from: string, specifier: string) =>
  specifier.startsWith(".")
    ? posix.normalize(posix.join(posix.dirname(from), specifier)).replace(/\.js$/, ".ts")
    : null;

/** The workspace package a bare specifier names, and whether it names a path inside it. */
function workspacePackageOf(specifier: string): { name: string; deep: boolean } | null {
  for (const name of WORKSPACE.values()) {
    if (specifier === name) return { name, deep: false };
    if (specifier.startsWith(`${name}/`)) return { name, deep: true };
  }
  return null;
}

/**
 * The files a package publishes: those its `src/index.ts` reaches by relative imports inside its
 * folder (what its build bundles; a reach outside is a problem of its own).
 */
function published(files: Files, dir: string): string[] {
  const seen = new Set([`${dir}/src/index.ts`]);
  for (const file of seen) {
    for (const specifier of specifiersOf(files.get(file) ?? "")) {
      const target = resolve(file, specifier);
      if (target?.startsWith(`${dir}/`) && files.has(target)) seen.add(target);
    }
  }
  return [...seen];
}

// --- The doc's tables ---

/** The body rows of the first table after `heading`, as trimmed cells. */
function tableAfter(doc: string, heading: string): string[][] {
  const at = doc.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`docs/architecture.md has no "${heading}"`);
  const lines = doc.slice(at).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const codeSpans = (cell = "") => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");

interface Layer {
  name: string;
  /** Files (`auth.ts`) and folders (`http/`) of `src/`. */
  where: string[];
}

/** The layer table, top to bottom. */
const layersOf = (doc: string): Layer[] =>
  tableAfter(doc, "## Layers of the core").map(([name = "", where]) => ({
    name: name.replace(/`/g, ""),
    where: codeSpans(where),
  }));

const names = (where: string, file: string) =>
  where.endsWith("/") ? file.startsWith(where) : file === where;

/** The core's source files (tests aside) by path from `src/`. */
const coreOf = (files: Files): Map<string, string> =>
  new Map(
    [...files]
      .filter(([path]) => path.startsWith(CORE) && path.endsWith(".ts") && !isTest(path))
      .map(([path, source]) => [path.slice(CORE.length), source]),
  );

// --- Rules 1 to 5 and 10: the core's layers ---

/** Rule 10: each source file in exactly one row; each name of the table a file or folder there is. */
function placement(core: Files, layers: Layer[]): string[] {
  const problems: string[] = [];
  for (const file of core.keys()) {
    const rows = layers.filter((layer) => layer.where.some((where) => names(where, file)));
    if (rows.length !== 1)
      problems.push(`${file}: named by ${rows.length} rows of the layer table (${rows.map((r) => r.name)})`);
  }
  for (const layer of layers)
    for (const where of layer.where)
      if (![...core.keys()].some((file) => names(where, file)))
        problems.push(`${layer.name}: names \`${where}\`, which holds no source file`);
  return problems;
}

/** Each core file's imports of other core files. */
function importGraph(core: Files): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [file, source] of core) {
    const targets = specifiersOf(source).map((specifier) => resolve(file, specifier));
    graph.set(
      file,
      new Set(targets.filter((target): target is string => target !== null && core.has(target))),
    );
  }
  return graph;
}

/** Rule 1: every import points to the importer's own layer or one below. */
function upwardImports(core: Files, layers: Layer[]): string[] {
  const layerOf = (file: string) =>
    layers.findIndex((layer) => layer.where.some((where) => names(where, file)));
  const problems: string[] = [];
  for (const [file, targets] of importGraph(core))
    for (const target of targets)
      if (layerOf(target) < layerOf(file))
        problems.push(
          `${file} → ${target}: ${layers[layerOf(file)]?.name} may not import ${layers[layerOf(target)]?.name}`,
        );
  return problems;
}

/** The first cycle found in a graph, as the list of its nodes, or null. */
function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const state = new Map<string, "visiting" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === "done") return null;
    if (state.get(node) === "visiting") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "visiting");
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

const folderOf = (file: string) => (file.includes("/") ? `${file.slice(0, file.indexOf("/"))}/` : file);

/** Rules 2 and 3: no file cycle, and no folder cycle (a top-level file is its own folder). */
function cycles(core: Files): string[] {
  const files = importGraph(core);
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files)
    for (const target of targets)
      if (folderOf(file) !== folderOf(target))
        folders.set(folderOf(file), (folders.get(folderOf(file)) ?? new Set()).add(folderOf(target)));
  const fileCycle = findCycle(files);
  const folderCycle = findCycle(folders);
  return [
    ...(fileCycle ? [`file cycle: ${fileCycle.join(" → ")}`] : []),
    ...(folderCycle ? [`folder cycle: ${folderCycle.join(" → ")}`] : []),
  ];
}

/** Rules 4 and 5: imports that point down and are still wrong. */
const FORBIDDEN: { from: RegExp; to: RegExp; why: string }[] = [
  { from: /^use-cases\//, to: /^use-cases\//, why: "use cases do not import each other" },
  { from: /^http\//, to: /^(use-cases\/|context\.ts$)/, why: "the HTTP layer knows only the Auth object" },
];

function forbiddenImports(core: Files): string[] {
  const problems: string[] = [];
  for (const [file, targets] of importGraph(core))
    for (const target of targets)
      for (const rule of FORBIDDEN)
        if (rule.from.test(file) && rule.to.test(target)) problems.push(`${file} → ${target}: ${rule.why}`);
  return problems;
}

// --- Rules 6 to 9 and 11: the packages ---

/**
 * Rules 6 and 8: what a package publishes imports, of the workspace, only the packages in
 * `allowed` (by their names), and no file outside its own folder.
 */
function publishedImports(files: Files, dir: string, allowed: readonly string[]): string[] {
  const problems: string[] = [];
  for (const file of published(files, dir))
    for (const specifier of specifiersOf(files.get(file) ?? "")) {
      const target = resolve(file, specifier);
      const pkg = workspacePackageOf(specifier);
      if (target && !target.startsWith(`${dir}/`))
        problems.push(`${file}: reaches outside its package (${specifier})`);
      else if (pkg && (pkg.deep || !allowed.includes(pkg.name)))
        problems.push(
          `${file}: imports ${specifier} (published code may import only ${allowed.join(", ") || "no workspace package"})`,
        );
    }
  return problems;
}

const PACKAGE_RULES = () =>
  [...WORKSPACE.keys()]
    .filter((dir) => dir.startsWith("packages/"))
    .map((dir) => ({ dir, allowed: dir === "packages/core" ? [] : ["@portcullis/core"] }));

/** Rule 7: outside the core, nothing (tests included) imports a path inside it. */
function deepCoreImports(files: Files): string[] {
  const problems: string[] = [];
  for (const [file, source] of files) {
    if (file.startsWith("packages/core/")) continue;
    for (const specifier of specifiersOf(source))
      if (specifier.startsWith("@portcullis/core/") || resolve(file, specifier)?.startsWith("packages/core/"))
        problems.push(`${file}: imports ${specifier}, a path inside the core`);
  }
  return problems;
}

/** Rule 9: no file under `packages/` (tests included) imports an example. */
function exampleImports(files: Files): string[] {
  const examples = [...WORKSPACE].filter(([dir]) => dir.startsWith("examples/")).map(([, name]) => name);
  const problems: string[] = [];
  for (const [file, source] of files) {
    if (!file.startsWith("packages/")) continue;
    for (const specifier of specifiersOf(source)) {
      const pkg = workspacePackageOf(specifier);
      if ((pkg && examples.includes(pkg.name)) || resolve(file, specifier)?.startsWith("examples/"))
        problems.push(`${file}: imports ${specifier}, an example`);
    }
  }
  return problems;
}

/** Rule 11: each package under `packages/` has a row of the Packages table, and each package the table names exists. */
function packageTable(doc: string): string[] {
  const listed = tableAfter(doc, "## Packages").flatMap(([packages]) => codeSpans(packages));
  const actual = [...WORKSPACE].filter(([dir]) => dir.startsWith("packages/")).map(([, name]) => name);
  return [
    ...actual.filter((name) => !listed.includes(name)).map((name) => `${name}: not in the Packages table`),
    ...listed
      .filter((name) => name.startsWith("@") && !actual.includes(name))
      .map((name) => `\`${name}\` in the Packages table: no such package under packages/`),
  ];
}

// --- The tests ---

const FILES = readWorkspace();
const LAYERS = layersOf(DOC);

/** A copy of `files` with `line` added at the top of `path` (which may be new). */
const planted = (files: Files, path: string, line: string) =>
  new Map(files).set(path, `${line}\n${files.get(path) ?? ""}`);
const plantedInCore = (path: string, line: string) => coreOf(planted(FILES, `${CORE}${path}`, line));

describe("architecture", () => {
  it("layersOf - reads the layer table of docs/architecture.md, top to bottom", () => {
    expect(LAYERS.map((layer) => layer.name)).toEqual([
      "test support",
      "public index",
      "HTTP",
      "createAuth",
      "use cases",
      "context",
      "mechanisms",
      "foundation",
    ]);
    expect(LAYERS.at(-1)?.where).toContain("options.ts");
    expect(coreOf(FILES).size).toBeGreaterThan(100);
  });

  it("placement - every source file of the core is in exactly one row of the layer table (rule 10)", () => {
    expect(placement(coreOf(FILES), LAYERS)).toEqual([]);
  });

  it("placement - a file in no row, a file in two rows and a row naming nothing are caught", () => {
    expect(placement(plantedInCore("planted.ts", ""), LAYERS)).toEqual([
      "planted.ts: named by 0 rows of the layer table ()",
    ]);
    const twice = layersOf(DOC.replace("`identity/` |", "`identity/`, `identity-provider-options.ts` |"));
    expect(placement(coreOf(FILES), twice)).toEqual([
      "identity-provider-options.ts: named by 2 rows of the layer table (mechanisms,foundation)",
    ]);
    const stale = layersOf(DOC.replace("`options.ts`,", "`options.ts`, `gone.ts`,"));
    expect(placement(coreOf(FILES), stale)).toEqual([
      "foundation: names `gone.ts`, which holds no source file",
    ]);
  });

  it("upwardImports - every import of the core points to its own layer or one below (rule 1)", () => {
    expect(upwardImports(coreOf(FILES), LAYERS)).toEqual([]);
  });

  it("upwardImports - a planted upward import is caught (a port importing HTTP, the options a mechanism)", () => {
    expect(upwardImports(plantedInCore("ports/clock.ts", `import "../http/handler.js";`), LAYERS)).toEqual([
      "ports/clock.ts → http/handler.ts: foundation may not import HTTP",
    ]);
    expect(
      upwardImports(
        plantedInCore("options.ts", `import { KIND_LAYOUT } from "./emails/templates.js";`),
        LAYERS,
      ),
    ).toEqual(["options.ts → emails/templates.ts: foundation may not import mechanisms"]);
  });

  it("cycles - no files and no folders of the core import each other in a circle (rules 2 and 3)", () => {
    expect(cycles(coreOf(FILES))).toEqual([]);
  });

  it("cycles - a planted file cycle, and a folder cycle without a file cycle, are caught", () => {
    const files = planted(
      planted(FILES, `${CORE}tokens/random.ts`, `import { keyId } from "./keys.js";`),
      `${CORE}tokens/keys.ts`,
      `import { randomToken } from "./random.js";`,
    );
    expect(cycles(coreOf(files))).toEqual([
      expect.stringMatching(/^file cycle: .*tokens\/(keys|random)\.ts/),
    ]);
    const folders = plantedInCore("tokens/planted.ts", `import "../two-factor/email-code.js";`);
    expect(cycles(folders)).toEqual([expect.stringMatching(/^folder cycle: .*tokens\/ → .*two-factor\//)]);
  });

  it("forbiddenImports - no use case imports another, and HTTP imports no use case nor the context (rules 4 and 5)", () => {
    expect(forbiddenImports(coreOf(FILES))).toEqual([]);
  });

  it("forbiddenImports - a planted use case importing another, and HTTP importing a use case and the context, are caught", () => {
    const files = planted(
      planted(FILES, `${CORE}use-cases/logout.ts`, `import { login } from "./login.js";`),
      `${CORE}http/respond.ts`,
      `import type { LoginResult } from "../use-cases/login.js";\nimport type { AuthContext } from "../context.js";`,
    );
    expect(forbiddenImports(coreOf(files))).toEqual([
      "http/respond.ts → use-cases/login.ts: the HTTP layer knows only the Auth object",
      "http/respond.ts → context.ts: the HTTP layer knows only the Auth object",
      "use-cases/logout.ts → use-cases/login.ts: use cases do not import each other",
    ]);
  });

  it("publishedImports - the core publishes nothing of the workspace; adapters, stores and testing only @portcullis/core (rules 6 and 8)", () => {
    const rules = PACKAGE_RULES();
    expect(rules.length).toBeGreaterThan(6);
    for (const { dir } of rules) expect(FILES.has(`${dir}/src/index.ts`)).toBe(true);
    expect(published(FILES, "packages/core").length).toBeGreaterThan(50);
    expect(rules.flatMap(({ dir, allowed }) => publishedImports(FILES, dir, allowed))).toEqual([]);
    // What tests and test helpers import does not count: the core's test support uses the testing package.
    expect(published(FILES, "packages/core")).not.toContain(`${CORE}test-support.ts`);
    expect(FILES.get(`${CORE}test-support.ts`)).toContain('from "@portcullis/testing"');
  });

  it("publishedImports - a planted import of a workspace package, a deep one and a reach into another folder are caught", () => {
    const core = planted(FILES, `${CORE}errors.ts`, `import { createFakeClock } from "@portcullis/testing";`);
    expect(publishedImports(core, "packages/core", [])).toEqual([
      `${CORE}errors.ts: imports @portcullis/testing (published code may import only no workspace package)`,
    ]);
    const store = planted(
      FILES,
      "packages/store-redis/src/redis-stores.ts",
      `import "@portcullis/adapter-express";`,
    );
    expect(publishedImports(store, "packages/store-redis", ["@portcullis/core"])).toEqual([
      "packages/store-redis/src/redis-stores.ts: imports @portcullis/adapter-express (published code may import only @portcullis/core)",
    ]);
    const deep = planted(FILES, "packages/testing/src/index.ts", `import "@portcullis/core/src/errors.js";`);
    expect(publishedImports(deep, "packages/testing", ["@portcullis/core"])).toEqual([
      "packages/testing/src/index.ts: imports @portcullis/core/src/errors.js (published code may import only @portcullis/core)",
    ]);
    const reach = planted(
      FILES,
      "packages/adapter-fastify/src/index.ts",
      `import "../../store-memory/src/index.js";`,
    );
    expect(publishedImports(reach, "packages/adapter-fastify", ["@portcullis/core"])).toEqual([
      "packages/adapter-fastify/src/index.ts: reaches outside its package (../../store-memory/src/index.js)",
    ]);
  });

  it("deepCoreImports - outside the core, no file imports a path inside it, tests included (rule 7)", () => {
    expect(deepCoreImports(FILES)).toEqual([]);
  });

  it("deepCoreImports - a planted deep import, by package path and by relative path from a test, is caught", () => {
    const files = planted(
      planted(FILES, "packages/adapter-express/src/index.ts", `import "@portcullis/core/dist/index.js";`),
      "packages/store-sql/src/planted.test.ts",
      `import { ERROR_CODES } from "../../core/src/errors.js";`,
    );
    expect(deepCoreImports(files)).toEqual([
      "packages/adapter-express/src/index.ts: imports @portcullis/core/dist/index.js, a path inside the core",
      "packages/store-sql/src/planted.test.ts: imports ../../core/src/errors.js, a path inside the core",
    ]);
  });

  it("exampleImports - no file under packages/ imports an example (rule 9)", () => {
    expect(exampleImports(FILES)).toEqual([]);
  });

  it("exampleImports - a planted import of an example, by name and by relative path, is caught", () => {
    const files = planted(
      planted(FILES, "packages/testing/src/planted.test.ts", `import "example-shared/suite";`),
      "packages/store-memory/src/planted.ts",
      `import "../../../examples/shared/src/index.js";`,
    );
    expect(exampleImports(files)).toEqual([
      "packages/testing/src/planted.test.ts: imports example-shared/suite, an example",
      "packages/store-memory/src/planted.ts: imports ../../../examples/shared/src/index.js, an example",
    ]);
  });

  it("packageTable - every package under packages/ is in the Packages table of docs/architecture.md (rule 11)", () => {
    expect(packageTable(DOC)).toEqual([]);
  });

  it("packageTable - a package left out of the table, and a table row naming no package, are caught", () => {
    expect(packageTable(DOC.replace(", `@portcullis/store-sql`", ""))).toEqual([
      "@portcullis/store-sql: not in the Packages table",
    ]);
    expect(packageTable(DOC.replace("`@portcullis/testing`", "`@portcullis/testkit`"))).toEqual([
      "@portcullis/testing: not in the Packages table",
      "`@portcullis/testkit` in the Packages table: no such package under packages/",
    ]);
  });
});
