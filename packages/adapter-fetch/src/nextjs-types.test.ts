import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// The Next.js route handlers of docs/runtimes.md, type-checked against Next.js's own types without
// building a Next app. `next` is big, so it is no dependency of the workspace: this test installs
// it from the npm registry into a temporary folder (without its optional SWC and sharp binaries,
// and without install scripts), links the built workspace packages beside it, and runs tsc with a
// Next app's usual tsconfig. Needs `pnpm -r build` first and the npm registry.
const run = promisify(execFile);
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
const built = LINKED.every((pkg) => existsSync(join(ROOT, "packages", pkg, "dist/index.d.ts")));

/** The code blocks of the doc's Next.js section, by the path their first line names (`// app/…`). */
export function nextFiles(doc: string): Map<string, string> {
  const start = doc.indexOf("\n## Next.js route handlers\n");
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const files = new Map<string, string>();
  for (const [, code = ""] of section.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const path = /^\/\/ ([\w/[\].-]+\.ts)/.exec(code)?.[1];
    if (path) files.set(path, code);
  }
  return files;
}

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

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

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
      work = await mkdtemp(join(tmpdir(), "portcullis-nextjs-"));
      const env: NodeJS.ProcessEnv = {};
      for (const [name, value] of Object.entries(process.env))
        if (!/^npm_config_/i.test(name)) env[name] = value;
      await writeFile(join(work, "package.json"), JSON.stringify({ name: "next-types", private: true }));
      await run(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          "--loglevel=error",
          "--omit=optional",
          "--ignore-scripts",
          ...NEXT_DEPENDENCIES,
        ],
        { cwd: work, env, maxBuffer: 16 * 1024 * 1024 },
      );
      await mkdir(join(work, "node_modules/@portcullis"), { recursive: true });
      for (const pkg of LINKED)
        await symlink(join(ROOT, "packages", pkg), join(work, "node_modules/@portcullis", pkg), "dir");
      const doc = await readFile(join(ROOT, "docs/runtimes.md"), "utf8");
      for (const [path, code] of [...nextFiles(doc), ["checks.ts", CHECKS] as const]) {
        await mkdir(dirname(join(work, path)), { recursive: true });
        await writeFile(join(work, path), code);
      }
      await writeFile(join(work, "tsconfig.json"), JSON.stringify(TSCONFIG));
      const tsc = await run(process.execPath, [join(work, "node_modules/typescript/bin/tsc"), "-p", work], {
        cwd: work,
      }).then(
        ({ stdout, stderr }) => `${stdout}${stderr}`,
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
      );
      expect(tsc).toBe("");
    },
    5 * 60_000,
  );
});
