// What the packaging tests share: `pnpm pack` of workspace packages, and an environment without
// the npm_config_* variables that pnpm and npm pass to the scripts they run.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const run = promisify(execFile);
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** `pnpm pack` each of `dirs` (under packages/) into `destination`; their tarballs' paths by dir. */
export async function packPackages(
  dirs: readonly string[],
  destination: string,
): Promise<Record<string, string>> {
  const missing = dirs.filter((dir) => !existsSync(join(ROOT, "packages", dir, "dist", "index.js")));
  if (missing.length > 0) throw new Error(`build first (pnpm -r build): no dist in ${missing.join(", ")}`);
  const tarballs: Record<string, string> = {};
  for (const dir of dirs) {
    const { stdout } = await run("pnpm", ["pack", "--pack-destination", destination], {
      cwd: join(ROOT, "packages", dir),
    });
    const tarball = stdout.trim().split("\n").at(-1) ?? "";
    if (!tarball.endsWith(".tgz"))
      throw new Error(`pnpm pack in packages/${dir} printed no tarball:\n${stdout}`);
    tarballs[dir] = tarball;
  }
  return tarballs;
}

/** The process environment without npm_config_* variables (a host's shell has none). */
export function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_config_/i.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
