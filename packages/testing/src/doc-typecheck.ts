// Type-checking a doc's code blocks against a framework's own types without making the framework
// a dependency of the workspace: the blocks are written into a temporary project that installs
// the framework's types from the npm registry and links the built workspace packages.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Whether each of `packages` (folder names under `<root>/packages`) is built: its `dist/index.d.ts` is there. */
export const workspaceBuilt = (root: string, packages: string[]): boolean =>
  packages.every((pkg) => existsSync(join(root, "packages", pkg, "dist/index.d.ts")));

/**
 * The code blocks fenced as `language` in the section of the Markdown `doc` under the heading
 * `## <heading>`, by the path their first line names in a comment (`// <path>`), for paths that
 * `path` (a pattern with the path as its first group, anchored at the start) matches.
 */
export function docSectionFiles(
  doc: string,
  heading: string,
  language: string,
  path: RegExp,
): Map<string, string> {
  const start = doc.indexOf(`\n## ${heading}\n`);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  const files = new Map<string, string>();
  for (const [, code = ""] of section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))) {
    const named = path.exec(code)?.[1];
    if (named) files.set(named, code);
  }
  return files;
}

export interface ScratchTypecheckOptions {
  /** The temporary project's name (its folder's prefix and its package.json's name). */
  name: string;
  /** What `npm install` installs (`name@version`), with `installFlags` after its usual quiet ones. */
  dependencies: string[];
  installFlags?: string[];
  /** The repository's root, and the workspace packages (folders under `packages`) linked as `@portcullis/<folder>`. */
  root: string;
  linked: string[];
  /** The files to check, by path in the project, and its tsconfig.json. */
  files: Iterable<readonly [string, string]>;
  tsconfig: unknown;
}

/**
 * Runs tsc on `files` in a new temporary project (removed after): npm installs `dependencies`
 * there from the registry (with the environment's `npm_config_*` left out, so the workspace's pnpm
 * settings do not reach npm) and the built workspace packages are linked beside them. Resolves to
 * what tsc printed: "" when everything type-checks.
 */
export async function typecheckInScratchProject(options: ScratchTypecheckOptions): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), `portcullis-${options.name}-`));
  try {
    const env: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env))
      if (!/^npm_config_/i.test(name)) env[name] = value;
    await writeFile(join(work, "package.json"), JSON.stringify({ name: options.name, private: true }));
    const flags = ["--no-audit", "--no-fund", "--loglevel=error", ...(options.installFlags ?? [])];
    await run("npm", ["install", ...flags, ...options.dependencies], {
      cwd: work,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });
    await mkdir(join(work, "node_modules/@portcullis"), { recursive: true });
    for (const pkg of options.linked)
      await symlink(join(options.root, "packages", pkg), join(work, "node_modules/@portcullis", pkg), "dir");
    for (const [path, code] of options.files) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), code);
    }
    await writeFile(join(work, "tsconfig.json"), JSON.stringify(options.tsconfig));
    return await run(process.execPath, [join(work, "node_modules/typescript/bin/tsc"), "-p", work], {
      cwd: work,
    }).then(
      ({ stdout, stderr }) => `${stdout}${stderr}`,
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
