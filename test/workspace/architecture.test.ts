// The one-way rules and the placement of docs/architecture.md, checked against the code. The
// layers and the packages are read from the doc's own tables, so the doc cannot drift from what
// is checked; each rule is shown catching a violation planted in a copy of the source.
import { readFileSync } from "node:fs";
import { posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { foldersOf, ROOT, readSourceFiles } from "./source-files.js";

const DOC = readFileSync(`${ROOT}docs/architecture.md`, "utf8");
const CORE = "packages/core/src/";

/** Source files by path from the repository root. */
type Files = ReadonlyMap<string, string>;

/** Workspace package names by folder (`packages/core` → `@portcullis/core`). */
const WORKSPACE: ReadonlyMap<string, string> = new Map(
  [...foldersOf("packages"), ...foldersOf("examples")].map((dir) => [
    dir,
    (JSON.parse(readFileSync(`${ROOT}${dir}/package.json`, "utf8")) as { name: string }).name,
  ]),
);

const readWorkspace = () => {
  const files = new Map<string, string>();
  for (const dir of WORKSPACE.keys()) readSourceFiles(dir, files);
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
          `${file}: imports ${specifier} (published code may import ${allowed.length > 0 ? `only ${allowed.join(", ")}` : "no workspace package"})`,
        );
    }
  return problems;
}

const PACKAGE_RULES = () =>
  [...WORKSPACE.keys()]
    .filter((dir) => dir.startsWith("packages/"))
    .map((dir) => ({ dir, allowed: PUBLISHED_WORKSPACE_IMPORTS[dir] ?? ["@portcullis/core"] }));

/** The packages whose published code may import other workspace packages than the core (rules 6 and 8). */
const PUBLISHED_WORKSPACE_IMPORTS: Record<string, string[]> = {
  "packages/core": [],
  // The import writes into store-sql's tables through its public exports (docs/architecture.md, rule 8).
  "packages/import": ["@portcullis/core", "@portcullis/store-sql"],
};

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

/** A copy of the workspace with a line added at the top of each path given (which may be new). */
function planted(lines: Record<string, string>): Files {
  const files = new Map(FILES);
  for (const [path, line] of Object.entries(lines)) files.set(path, `${line}\n${FILES.get(path) ?? ""}`);
  return files;
}

/** One rule of the doc: its check over the workspace and the doc, and planted violations it must catch. */
interface Rule {
  name: string;
  rules: string;
  check: (files: Files, doc: string) => string[];
  violations: {
    what: string;
    /** A line to add at the top of each path (with `core:` for `packages/core/src/`). */
    plant?: Record<string, string>;
    /** The doc as edited for this violation. */
    doc?: (doc: string) => string;
    caught: unknown[];
  }[];
}

const withCore = (plant: Record<string, string> = {}) =>
  Object.fromEntries(Object.entries(plant).map(([path, line]) => [path.replace(/^core:/, CORE), line]));

const RULES: Rule[] = [
  {
    name: "placement",
    rules: "every source file of the core is in exactly one row of the layer table (rule 10)",
    check: (files, doc) => placement(coreOf(files), layersOf(doc)),
    violations: [
      {
        what: "a file in no row",
        plant: { "core:planted.ts": "" },
        caught: ["planted.ts: named by 0 rows of the layer table ()"],
      },
      {
        what: "a file in two rows",
        doc: (doc) => doc.replace("`identity/` |", "`identity/`, `errors.ts` |"),
        caught: ["errors.ts: named by 2 rows of the layer table (mechanisms,foundation)"],
      },
      {
        what: "a row naming a file that is not there",
        doc: (doc) => doc.replace("`validation.ts`,", "`validation.ts`, `gone.ts`,"),
        caught: ["foundation: names `gone.ts`, which holds no source file"],
      },
    ],
  },
  {
    name: "upwardImports",
    rules: "every import of the core points to its own layer or one below (rule 1)",
    check: (files, doc) => upwardImports(coreOf(files), layersOf(doc)),
    violations: [
      {
        what: "a port importing the HTTP layer",
        plant: { "core:ports/clock.ts": `import "../http/handler.js";` },
        caught: ["ports/clock.ts → http/handler.ts: foundation may not import HTTP"],
      },
      {
        what: "the options importing a mechanism",
        plant: { "core:options/options.ts": `import { KIND_LAYOUT } from "../emails/templates.js";` },
        caught: ["options/options.ts → emails/templates.ts: foundation may not import mechanisms"],
      },
    ],
  },
  {
    name: "cycles",
    rules: "no files and no folders of the core import each other in a circle (rules 2 and 3)",
    check: (files) => cycles(coreOf(files)),
    violations: [
      {
        what: "a file cycle",
        plant: {
          "core:tokens/random.ts": `import { keyId } from "./keys.js";`,
          "core:tokens/keys.ts": `import { randomToken } from "./random.js";`,
        },
        caught: [expect.stringMatching(/^file cycle: .*tokens\/(keys|random)\.ts/)],
      },
      {
        what: "a folder cycle without a file cycle",
        plant: { "core:tokens/planted.ts": `import "../two-factor/email-code.js";` },
        caught: [expect.stringMatching(/^folder cycle: .*tokens\/ → .*two-factor\//)],
      },
    ],
  },
  {
    name: "forbiddenImports",
    rules: "no use case imports another, and HTTP imports no use case nor the context (rules 4 and 5)",
    check: (files) => forbiddenImports(coreOf(files)),
    violations: [
      {
        what: "a use case importing another, HTTP importing a use case and the context",
        plant: {
          "core:use-cases/logout.ts": `import { login } from "./login.js";`,
          "core:http/respond.ts": `import type { LoginResult } from "../use-cases/login.js";\nimport type { AuthContext } from "../context.js";`,
        },
        caught: [
          "http/respond.ts → use-cases/login.ts: the HTTP layer knows only the Auth object",
          "http/respond.ts → context.ts: the HTTP layer knows only the Auth object",
          "use-cases/logout.ts → use-cases/login.ts: use cases do not import each other",
        ],
      },
    ],
  },
  {
    name: "publishedImports",
    rules:
      "the core publishes nothing of the workspace; adapters, stores and testing only @portcullis/core (rules 6 and 8)",
    check: (files) => PACKAGE_RULES().flatMap(({ dir, allowed }) => publishedImports(files, dir, allowed)),
    violations: [
      {
        what: "the core importing the testing package",
        plant: { "core:errors.ts": `import { createFakeClock } from "@portcullis/testing";` },
        caught: [
          `${CORE}errors.ts: imports @portcullis/testing (published code may import no workspace package)`,
        ],
      },
      {
        what: "a store importing an adapter, testing a path inside the core",
        plant: {
          "packages/store-redis/src/redis-stores.ts": `import "@portcullis/adapter-express";`,
          "packages/testing/src/index.ts": `import "@portcullis/core/src/errors.js";`,
        },
        caught: [
          "packages/store-redis/src/redis-stores.ts: imports @portcullis/adapter-express (published code may import only @portcullis/core)",
          "packages/testing/src/index.ts: imports @portcullis/core/src/errors.js (published code may import only @portcullis/core)",
        ],
      },
      {
        what: "an adapter reaching into a store's folder",
        plant: { "packages/adapter-fastify/src/index.ts": `import "../../store-memory/src/index.js";` },
        caught: [
          "packages/adapter-fastify/src/index.ts: reaches outside its package (../../store-memory/src/index.js)",
        ],
      },
    ],
  },
  {
    name: "deepCoreImports",
    rules: "outside the core, no file imports a path inside it, tests included (rule 7)",
    check: (files) => deepCoreImports(files),
    violations: [
      {
        what: "a deep import by package path, and one by relative path from a test",
        plant: {
          "packages/adapter-express/src/index.ts": `import "@portcullis/core/dist/index.js";`,
          "packages/store-sql/src/planted.test.ts": `import { ERROR_CODES } from "../../core/src/errors.js";`,
        },
        caught: [
          "packages/adapter-express/src/index.ts: imports @portcullis/core/dist/index.js, a path inside the core",
          "packages/store-sql/src/planted.test.ts: imports ../../core/src/errors.js, a path inside the core",
        ],
      },
    ],
  },
  {
    name: "exampleImports",
    rules: "no file under packages/ imports an example (rule 9)",
    check: (files) => exampleImports(files),
    violations: [
      {
        what: "an import of an example by name, and one by relative path",
        plant: {
          "packages/testing/src/planted.test.ts": `import "example-shared/suite";`,
          "packages/store-memory/src/planted.ts": `import "../../../examples/shared/src/index.js";`,
        },
        caught: [
          "packages/testing/src/planted.test.ts: imports example-shared/suite, an example",
          "packages/store-memory/src/planted.ts: imports ../../../examples/shared/src/index.js, an example",
        ],
      },
    ],
  },
  {
    name: "packageTable",
    rules: "every package under packages/ is in the Packages table of docs/architecture.md (rule 11)",
    check: (_files, doc) => packageTable(doc),
    violations: [
      {
        what: "a package left out of the table",
        doc: (doc) => doc.replace(", `@portcullis/store-sql`", ""),
        caught: ["@portcullis/store-sql: not in the Packages table"],
      },
      {
        what: "a row naming no package",
        doc: (doc) => doc.replace("`@portcullis/testing`", "`@portcullis/testkit`"),
        caught: [
          "@portcullis/testing: not in the Packages table",
          "`@portcullis/testkit` in the Packages table: no such package under packages/",
        ],
      },
    ],
  },
];

describe("architecture", () => {
  it("layersOf - reads the layer table of docs/architecture.md, top to bottom", () => {
    const layers = layersOf(DOC);
    expect(layers.map((layer) => layer.name)).toEqual([
      "test support",
      "public index",
      "HTTP",
      "createAuth",
      "use cases",
      "context",
      "mechanisms",
      "foundation",
    ]);
    expect(layers.at(-1)?.where).toContain("options/");
    expect(coreOf(FILES).size).toBeGreaterThan(100);
  });

  it("published - follows each package's imports from src/index.ts, and no test support", () => {
    for (const { dir } of PACKAGE_RULES()) expect(FILES.has(`${dir}/src/index.ts`)).toBe(true);
    expect(published(FILES, "packages/core").length).toBeGreaterThan(50);
    expect(published(FILES, "packages/store-memory")).toContain("packages/store-memory/src/memory-stores.ts");
    // What tests and their helpers import does not count: the core's test support uses the testing package.
    expect(published(FILES, "packages/core")).not.toContain(`${CORE}test-support.ts`);
    expect(FILES.get(`${CORE}test-support.ts`)).toContain('from "@portcullis/testing"');
  });

  for (const { name, rules, check, violations } of RULES) {
    it(`${name} - ${rules}`, () => {
      expect(check(FILES, DOC)).toEqual([]);
    });
    for (const { what, plant, doc, caught } of violations)
      it(`${name} - catches a planted violation: ${what}`, () => {
        expect(check(planted(withCore(plant)), doc ? doc(DOC) : DOC)).toEqual(caught);
      });
  }
});
