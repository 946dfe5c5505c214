import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { docSectionFiles, typecheckInScratchProject, workspaceBuilt } from "@portcullis/testing";
import { describe, expect, it } from "vitest";

// The React hook of docs/client.md, type-checked against React's own types. React is no
// dependency of the workspace: this test installs `@types/react` from the npm registry into a
// temporary folder, links the built client and core beside it, and runs tsc with a React app's
// usual tsconfig. Needs `pnpm -r build` first and the npm registry.
const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DEPENDENCIES = ["@types/react@19.3.0", "typescript@5.9.3"];
const LINKED = ["client", "core"];
const built = workspaceBuilt(ROOT, LINKED);

/** The `tsx` blocks of the doc's React section, by the file their first line names (`// use-user.tsx`). */
export const reactFiles = (doc: string): Map<string, string> =>
  docSectionFiles(doc, "In React", "tsx", /^\/\/ ([\w.-]+\.tsx)/);

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

describe.skipIf(!built && process.env.CI !== "true")("docs/client.md in React", () => {
  it("reactFiles - the section has the hook's file", async () => {
    const files = reactFiles(await readFile(join(ROOT, "docs/client.md"), "utf8"));
    expect([...files.keys()]).toEqual(["use-user.tsx"]);
  });

  it(
    "hook - type-checks against React's types (installed for this test only)",
    async () => {
      const doc = await readFile(join(ROOT, "docs/client.md"), "utf8");
      const tsc = await typecheckInScratchProject({
        name: "react-types",
        dependencies: DEPENDENCIES,
        installFlags: ["--ignore-scripts"],
        root: ROOT,
        linked: LINKED,
        files: [...reactFiles(doc), ["checks.tsx", CHECKS]],
        tsconfig: TSCONFIG,
      });
      expect(tsc).toBe("");
    },
    5 * 60_000,
  );
});
