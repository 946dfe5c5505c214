import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/example-suite.ts", "src/browser-suite.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
  // The suites run inside the host's vitest; never bundle it, Playwright or the testing package
  // (devDependencies) into dist.
  external: ["vitest", "playwright-core", "@portcullis/testing"],
});
