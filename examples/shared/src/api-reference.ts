import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Page } from "./pages.js";

/** The API reference page and the script it loads (Scalar's standalone bundle, served from node_modules). */
export const API_REFERENCE_PATH = "/docs/api";
export const API_REFERENCE_SCRIPT_PATH = "/docs/api/scalar.js";

/**
 * Scalar's settings: the auth routes' own OpenAPI document, and nothing from the internet: no
 * fonts from Scalar's servers (system fonts instead), no telemetry, no agent or MCP buttons.
 */
const configuration = (specUrl: string) => ({
  url: specUrl,
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: "json",
  favicon: "/favicon.svg",
});

let bundle: string | undefined;
/** `@scalar/api-reference`'s browser bundle (one file, ~4 MB), read once per process. */
function scalarBundle(): string {
  // The package exports no `./package.json`: its main entry is dist/index.js, the bundle dist/browser/.
  const main = createRequire(import.meta.url).resolve("@scalar/api-reference");
  bundle ??= readFileSync(join(dirname(main), "browser", "standalone.js"), "utf8");
  return bundle;
}

/**
 * `GET /docs/api`: an API reference of the auth routes, built in the browser from `specUrl`
 * (the example's `<prefix>/openapi.json`) by Scalar's bundle at `GET /docs/api/scalar.js`.
 */
export function apiReferencePages(specUrl = "/api/auth/openapi.json"): Map<string, Page> {
  // `<` escaped: the JSON sits inside a <script> element. The mount point must not be
  // `#api-reference`: the bundle mounts a second reference, with default settings, on that id.
  const settings = JSON.stringify(configuration(specUrl)).replace(/</g, "\\u003c");
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Portcullis API reference</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"></head>
<body><div id="app"></div>
<script src="${API_REFERENCE_SCRIPT_PATH}"></script>
<script>Scalar.createApiReference("#app", ${settings});</script>
</body></html>`;
  return new Map<string, Page>([
    [API_REFERENCE_PATH, { status: 200, contentType: "text/html; charset=utf-8", body }],
    [
      API_REFERENCE_SCRIPT_PATH,
      { status: 200, contentType: "text/javascript; charset=utf-8", body: scalarBundle() },
    ],
  ]);
}
