import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { docSectionFiles, typecheckInScratchProject, workspaceBuilt } from "@portcullis/testing";
import { describe, expect, it } from "vitest";

// The Next.js route handlers of docs/runtimes.md, type-checked against Next.js's own types without
// building a Next app. `next` is big, so it is no dependency of the workspace: this test installs
// it from the npm registry into a temporary folder (without its optional SWC and sharp binaries,
// and without install scripts), links the built workspace packages beside it, and runs tsc with a
// Next app's usual tsconfig. Needs `pnpm -r build` first and the npm registry.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const NEXT_DEPENDENCIES = [
  "next@16.4.6",
  "react@19.3.1",
  "react-dom@19.3.1",
  "@types/react@19.3.0",
  "@types/node@20",
  "typescript@5.9.3",
];
const LINKED = ["adapter-fetch", "core", "store-memory"];
const built = workspaceBuilt(ROOT, LINKED);

/** The code blocks of the doc's Next.js section, by the path their first line names (`// app/…`). */
export const nextFiles = (doc: string): Map<string, string> =>
  docSectionFiles(doc, "Next.js route handlers", "ts", /^\/\/ ([\w/[\].-]+\.ts)/);

/** What Next.js calls a route handler with and takes back; the files must fit it. */
const CHECKS = `import type { NextRequest } from "next/server";
import * as authRoutes from "@/app/api/auth/[...all]/route";
import * as orders from "@/app/api/orders/route";

type RouteHandler = (
  request: NextRequest,
  context: { params: Promise<Record<string, string | string[] | undefined>> },
) => Response | Promise<Response>;

export const handlers: RouteHandler[] = [
  authRoutes.GET, authRoutes.POST, authRoutes.PUT, authRoutes.PATCH, authRoutes.DELETE, orders.GET,
];
export const runtimes: "nodejs"[] = [authRoutes.runtime, orders.runtime];
// @ts-expect-error the check would catch a handler that answers anything but a Response
export const wrong: RouteHandler = (_request: NextRequest) => 42;
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2017",
    lib: ["dom", "dom.iterable", "esnext"],
    strict: true,
    noEmit: true,
    esModuleInterop: true,
    module: "esnext",
    moduleResolution: "bundler",
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: "preserve",
    skipLibCheck: true,
    paths: { "@/*": ["./*"] },
  },
  include: ["**/*.ts"],
  exclude: ["node_modules"],
};

describe.skipIf(!built && process.env.CI !== "true")("docs/runtimes.md on Next.js", () => {
  it("nextFiles - the section has the auth module and both route files", async () => {
    const files = nextFiles(await readFile(join(ROOT, "docs/runtimes.md"), "utf8"));
    expect([...files.keys()]).toEqual([
      "lib/auth.ts",
      "app/api/auth/[...all]/route.ts",
      "app/api/orders/route.ts",
    ]);
  });

  it(
    "route handlers - type-check against next's types (installed for this test only)",
    async () => {
      const doc = await readFile(join(ROOT, "docs/runtimes.md"), "utf8");
      const tsc = await typecheckInScratchProject({
        name: "next-types",
        dependencies: NEXT_DEPENDENCIES,
        // Without next's optional SWC and sharp binaries, and without install scripts.
        installFlags: ["--omit=optional", "--ignore-scripts"],
        root: ROOT,
        linked: LINKED,
        files: [...nextFiles(doc), ["checks.ts", CHECKS]],
        tsconfig: TSCONFIG,
      });
      expect(tsc).toBe("");
    },
    5 * 60_000,
  );
});
