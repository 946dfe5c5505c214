import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RouteInput } from "./http/route.js";
import type { Principal } from "./model.js";

/**
 * The one-way import rule of docs/architecture.md over the core's source, as a test: each file
 * sits in a layer, and imports may only point to its own layer or one below. Within a layer
 * neither files nor folders may form a cycle. Use cases never import each other; the HTTP layer sees the `Auth`
 * object, never a use case.
 */
const LAYERS: { name: string; members: RegExp }[] = [
  {
    name: "foundation",
    members:
      /^(ports\/|i18n\/|(errors|model|events|background|bounded-memo|with-timeout|email-address|user-agent|password-policy|secret-strength|validation|options|email-kinds|identity-provider-options)\.ts$)/,
  },
  {
    name: "mechanisms",
    members: /^(tokens|emails|limits|two-factor|sessions|hashing|identity)\//,
  },
  { name: "context", members: /^context\.ts$/ },
  { name: "use cases", members: /^use-cases\// },
  { name: "createAuth", members: /^(create-auth|auth)\.ts$/ },
  { name: "http", members: /^http\// },
  { name: "public index", members: /^index\.ts$/ },
  { name: "test support", members: /^test-support\.ts$/ },
];

/** Imports that skip no layer but are still the wrong way: a use case importing another, HTTP importing a use case. */
const FORBIDDEN: { from: RegExp; to: RegExp; why: string }[] = [
  { from: /^use-cases\//, to: /^use-cases\//, why: "use cases do not import each other" },
  { from: /^http\//, to: /^(use-cases\/|context\.ts$)/, why: "the HTTP layer sees only the Auth object" },
];

export type SourceTree = ReadonlyMap<string, string>;

const layerOf = (file: string) => LAYERS.findIndex((layer) => layer.members.test(file));
const folderOf = (file: string) => (file.includes("/") ? `${file.slice(0, file.indexOf("/"))}/` : file);

/** Relative imports (`import … from "./x.js"`, `export … from`, `import("./x.js")`) as tree paths. */
function importsOf(file: string, source: string): string[] {
  const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map(
    (m) => m[1] ?? "",
  );
  return specifiers.map((specifier) => normalize(join(dirname(file), specifier)).replace(/\.js$/, ".ts"));
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

/** Every violation of the rule in `tree` (source by path relative to `src/`), as readable lines. */
export function checkImports(tree: SourceTree): string[] {
  const problems: string[] = [];
  const files = new Map<string, Set<string>>();
  const folders = new Map<string, Set<string>>();
  for (const [file, source] of tree) {
    const layer = layerOf(file);
    if (layer === -1) problems.push(`${file}: in no layer (add it to LAYERS)`);
    files.set(file, new Set());
    for (const target of importsOf(file, source)) {
      if (!tree.has(target)) continue;
      files.get(file)?.add(target);
      if (layerOf(target) > layer)
        problems.push(
          `${file} → ${target}: ${LAYERS[layer]?.name} may not import ${LAYERS[layerOf(target)]?.name}`,
        );
      for (const rule of FORBIDDEN) {
        if (rule.from.test(file) && rule.to.test(target)) problems.push(`${file} → ${target}: ${rule.why}`);
      }
      if (folderOf(file) !== folderOf(target)) {
        const edges = folders.get(folderOf(file)) ?? new Set<string>();
        edges.add(folderOf(target));
        folders.set(folderOf(file), edges);
      }
    }
  }
  const fileCycle = findCycle(files);
  if (fileCycle) problems.push(`file cycle: ${fileCycle.join(" → ")}`);
  const folderCycle = findCycle(folders);
  if (folderCycle) problems.push(`folder cycle: ${folderCycle.join(" → ")}`);
  return problems;
}

function readTree(root: string): Map<string, string> {
  const tree = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
        tree.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  walk(root);
  return tree;
}

const SRC = dirname(fileURLToPath(import.meta.url));
const PACKAGES = join(SRC, "../..");

describe("architecture", () => {
  it("imports - every import of the core points down or sideways; no file or folder cycles", () => {
    const tree = readTree(SRC);
    expect(tree.size).toBeGreaterThan(50);
    expect(checkImports(tree)).toEqual([]);
  });

  it("imports - a planted wrong-way import is caught (a port importing the HTTP layer)", () => {
    const tree = new Map(readTree(SRC));
    tree.set(
      "ports/clock.ts",
      `${tree.get("ports/clock.ts")}\nimport { createHttpHandler } from "../http/handler.js";`,
    );
    expect(checkImports(tree)).toContain("ports/clock.ts → http/handler.ts: foundation may not import http");
  });

  it("imports - a planted use case importing another, HTTP importing a use case, and a cycle are caught", () => {
    const tree = new Map(readTree(SRC));
    tree.set(
      "use-cases/logout.ts",
      `import { login } from "./login.js";\n${tree.get("use-cases/logout.ts")}`,
    );
    tree.set(
      "http/respond.ts",
      `import type { LoginResult } from "../use-cases/login.js";\n${tree.get("http/respond.ts")}`,
    );
    tree.set("tokens/random.ts", `import { keyId } from "./keys.js";\n${tree.get("tokens/random.ts")}`);
    tree.set("tokens/keys.ts", `import { randomToken } from "./random.js";\n${tree.get("tokens/keys.ts")}`);
    const problems = checkImports(tree);
    expect(problems).toContain(
      "use-cases/logout.ts → use-cases/login.ts: use cases do not import each other",
    );
    expect(problems).toContain(
      "http/respond.ts → use-cases/login.ts: the HTTP layer sees only the Auth object",
    );
    expect(problems.some((line) => line.startsWith("file cycle:") && line.includes("tokens/keys.ts"))).toBe(
      true,
    );
  });

  it("imports - a planted folder cycle is caught even without a file cycle", () => {
    const tree = new Map(readTree(SRC));
    tree.set("tokens/planted.ts", `import { sendEmailCode } from "../two-factor/email-code.js";`);
    expect(checkImports(tree).some((line) => line.startsWith("folder cycle:"))).toBe(true);
  });

  it("use cases - one exported use case per file, named after it (request-password-reset.ts exports requestPasswordReset)", () => {
    const misnamed: string[] = [];
    for (const [file, source] of readTree(SRC)) {
      if (!file.startsWith("use-cases/")) continue;
      const functions = [...source.matchAll(/^export (?:async )?function (\w+)/gm)].map((m) => m[1]);
      const expected = file
        .slice("use-cases/".length, -".ts".length)
        .replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
      if (functions.length !== 1 || functions[0] !== expected)
        misnamed.push(`${file}: ${functions.join(", ")}`);
      if (/^export (const|let|class) /m.test(source))
        misnamed.push(`${file}: exports something besides its use case`);
    }
    expect(misnamed).toEqual([]);
  });

  it("imports - adapters, stores and testing import @portcullis/core only through its public index", () => {
    const deep: string[] = [];
    for (const pkg of readdirSync(PACKAGES)) {
      if (pkg === "core") continue;
      const dir = join(PACKAGES, pkg, "src");
      let tree: Map<string, string>;
      try {
        tree = readTree(dir);
      } catch {
        continue;
      }
      for (const [file, source] of tree) {
        if (/from "@portcullis\/core\/|from "(\.\.\/)+core\//.test(source)) deep.push(`${pkg}/src/${file}`);
      }
    }
    expect(deep).toEqual([]);
  });
  it("routes - no route handler authenticates or reads a credential itself: the HTTP layer resolves what `auth` declares", () => {
    const tree = readTree(SRC);
    const handlers = [...tree].filter(([file]) => file.startsWith("http/") && file !== "http/handler.ts");
    expect(handlers.map(([file]) => file)).toContain("http/routes.ts");
    const fetching: string[] = [];
    for (const [file, source] of handlers) {
      for (const call of source.matchAll(/\.(principal|authenticate|token)\(/g))
        fetching.push(`${file}: .${call[1]}(`);
    }
    expect(fetching).toEqual([]);
  });

  it("routes - a handler's input has the credentials of its route's auth and no other (types)", () => {
    const publicRoute: RouteInput<"none"> = {} as RouteInput<"none">;
    const signedIn = {} as RouteInput<"access">;
    const settings = {} as RouteInput<"step-up">;
    // @ts-expect-error a public route gets no principal
    expect(publicRoute.principal).toBeUndefined();
    // @ts-expect-error nor a way to fetch one
    expect(publicRoute.token).toBeUndefined();
    const principal: Principal = signedIn.principal;
    const stepUpToken: string = settings.stepUpToken;
    expect([principal, stepUpToken]).toEqual([undefined, undefined]);
  });
});
