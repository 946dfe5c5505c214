import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RouteInput } from "./http/route.js";
import type { Principal } from "./model.js";

/**
 * Rules of docs/architecture.md about what the core's files contain. The one-way import rules and
 * the placement of every file in a layer are checked over the whole workspace, from the doc's own
 * tables, by test/workspace/architecture.test.ts.
 */
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

describe("architecture", () => {
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

  it("routes - no route handler authenticates or reads a credential itself: the HTTP layer resolves what `auth` declares", () => {
    const tree = readTree(SRC);
    // handler.ts resolves credentials; guard.ts is the host routes' guard over `handler.authenticate`.
    const handlers = [...tree].filter(
      ([file]) => file.startsWith("http/") && file !== "http/handler.ts" && file !== "http/guard.ts",
    );
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
