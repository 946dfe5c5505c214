import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/server.ts", "src/app.ts", "src/native-serve.ts"],
  format: ["esm"],
  clean: true,
  target: "node20",
  sourcemap: true,
});
