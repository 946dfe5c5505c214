import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/server.ts", "src/app.ts"],
  format: ["esm"],
  clean: true,
  target: "node20",
  sourcemap: true,
});
