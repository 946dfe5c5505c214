import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/example-suite.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
});
