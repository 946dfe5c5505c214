import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { defineConfig } from "tsup";

/**
 * The build of every published package: ESM with `.d.ts`, plus the `require` target of the
 * `exports` map, a CommonJS file that only throws a clear message (the packages are ESM-only), with
 * types that export nothing, so `require()` fails in the type checker as it does at run time.
 */
export function packageBuild() {
  const { name } = JSON.parse(readFileSync("package.json", "utf8")) as { name: string };
  const message = `${name} is ESM-only: use \`import … from "${name}"\` (or \`await import("${name}")\` from CommonJS) instead of require().`;
  // Cleaned here rather than by tsup (`clean: true`), whose declaration build deletes every
  // `.d.cts` in dist, including the one written below.
  rmSync("dist", { recursive: true, force: true });
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm"],
    dts: true,
    clean: false,
    target: "node22",
    sourcemap: true,
    async onSuccess() {
      writeFileSync(
        "dist/esm-only.cjs",
        `"use strict";\n// ${name} is ESM-only; this file is what require() finds.\nthrow Object.assign(new Error(${JSON.stringify(message)}), { code: "ERR_REQUIRE_ESM" });\n`,
      );
      writeFileSync("dist/esm-only.d.cts", `// ${message}\nexport {};\n`);
    },
  });
}
