import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

// The React hook of docs/client.md, type-checked against React's own types. React is no
// dependency of the workspace: this test installs `@types/react` from the npm registry into a
// temporary folder, links the built client and core beside it, and runs tsc with a React app's
// usual tsconfig. Needs `pnpm -r build` first and the npm registry.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEPENDENCIES = ["@types/react@19.3.0", "typescript@5.9.3"];
const LINKED = ["client", "core"];
const built = LINKED.every((pkg) => existsSync(join(ROOT, "packages", pkg, "dist/index.d.ts")));

/** The `tsx` blocks of the doc's React section, by the file their first line names (`// use-user.tsx`). */
export function reactFiles(doc: string): Map<string, string> {
  const start = doc.indexOf("\n## In React\n");
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const files = new Map<string, string>();
  for (const [, code = ""] of section.matchAll(/```tsx\n([\s\S]*?)```/g)) {
    const path = /^\/\/ ([\w.-]+\.tsx)/.exec(code)?.[1];
    if (path) files.set(path, code);
  }
  return files;
}

/** How an app uses the hook; the last line shows the check can fail. */
const CHECKS = `import type { User } from "@portcullis/client";
import type { ReactElement } from "react";
import { AccountMenu, useUser } from "./use-user";

export const user: User | null | undefined = useUser();
export const menu: ReactElement = <AccountMenu />;
// @ts-expect-error the hook gives a user, never a string
export const wrong: string = useUser();
`;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    lib: ["dom", "dom.iterable", "esnext"],
    strict: true,
    noEmit: true,
    module: "esnext",
    moduleResolution: "bundler",
    isolatedModules: true,
    jsx: "react-jsx",
    skipLibCheck: true,
    types: [],
  },
  include: ["*.tsx"],
};

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(!built && process.env.CI !== "true")("docs/client.md in React", () => {
  it("reactFiles - the section has the hook's file", async () => {
    const files = reactFiles(await readFile(join(ROOT, "docs/client.md"), "utf8"));
    expect([...files.keys()]).toEqual(["use-user.tsx"]);
  });

  it(
    "hook - type-checks against React's types (installed for this test only)",
    async () => {
      work = await mkdtemp(join(tmpdir(), "portcullis-react-"));
      const env: NodeJS.ProcessEnv = {};
      for (const [name, value] of Object.entries(process.env))
        if (!/^npm_config_/i.test(name)) env[name] = value;
      await writeFile(join(work, "package.json"), JSON.stringify({ name: "react-types", private: true }));
      await run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--loglevel=error", "--ignore-scripts", ...DEPENDENCIES],
        { cwd: work, env, maxBuffer: 16 * 1024 * 1024 },
      );
      await mkdir(join(work, "node_modules/@portcullis"), { recursive: true });
      for (const pkg of LINKED)
        await symlink(join(ROOT, "packages", pkg), join(work, "node_modules/@portcullis", pkg), "dir");
      const doc = await readFile(join(ROOT, "docs/client.md"), "utf8");
      for (const [path, code] of [...reactFiles(doc), ["checks.tsx", CHECKS] as const])
        await writeFile(join(work, path), code);
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
