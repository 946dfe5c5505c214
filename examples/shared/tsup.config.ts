import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/example-suite.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
  // The suite runs inside the host's vitest; never bundle it (a devDependency) into dist.
  external: ["vitest"],
});
