import { packageBuild } from "../../tsup.shared.js";

// The library and the `portcullis` command (package.json's `bin`).
export default { ...packageBuild(), entry: ["src/index.ts", "src/cli.ts"] };
