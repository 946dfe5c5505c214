import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ERROR_CODES } from "./errors.js";
import { createCookies } from "./http/cookies.js";
import type { RouteAuth } from "./http/route.js";
import { buildRoutes } from "./http/routes.js";
import { STATUS_BY_CODE } from "./http/status.js";
import { en } from "./i18n/en.js";
import { optionDocs } from "./option-docs.js";
import { authOptionsSchema } from "./options/options.js";
import { createEveryRouteAuth } from "./test-support.js";

/**
 * The generated parts of the docs (route table, error table) are written from the code, so the
 * docs cannot drift: this test fails when they differ; `UPDATE_DOCS=1` rewrites them.
 */
const DOCS = fileURLToPath(new URL("../../../docs/", import.meta.url));

const AUTH_TEXT: Record<RouteAuth, string> = {
  none: "none",
  optional: "access token if any",
  "sign-out": "access or refresh token if any",
  access: "access token",
  "step-up": "access + step-up token",
  "two-factor": "2FA token",
  "access-and-two-factor": "access + 2FA token",
  "access-or-two-factor": "access token, or a login's 2FA token",
  refresh: "refresh token",
  admin: "access + step-up token of an admin (`admin.authorize`)",
};

function routeTable(): string {
  // Every optional area on, so that each route is in the table.
  const auth = createEveryRouteAuth();
  const rows = buildRoutes(auth, createCookies(auth.options)).map((route) => {
    const schema = route.body
      ? (z.toJSONSchema(route.body, { io: "input", unrepresentable: "any" }) as {
          properties?: object;
          required?: string[];
          anyOf?: { properties?: object; required?: string[] }[];
        })
      : undefined;
    const shape = schema?.properties ? schema : schema?.anyOf?.find((option) => option.properties);
    const body = Object.keys(shape?.properties ?? {})
      .map((field) => (shape?.required?.includes(field) ? field : `${field}?`))
      .join(", ");
    const query = (route.query ?? []).map((name) => `?${name}=`).join(" ");
    return `| ${route.method} \`${route.path}${query ? ` ${query}` : ""}\` | ${AUTH_TEXT[route.auth]} | ${body ? `\`{ ${body} }\`` : "—"} | ${route.summary} |`;
  });
  return ["| Route (under the prefix) | Needs | JSON body | Does |", "|---|---|---|---|", ...rows].join("\n");
}

function errorTable(): string {
  const messages = en.errors as Record<string, string>;
  const rows = [...ERROR_CODES]
    .sort((a, b) => STATUS_BY_CODE[a] - STATUS_BY_CODE[b] || a.localeCompare(b))
    .map((code) => `| ${STATUS_BY_CODE[code]} | \`${code}\` | ${messages[code] ?? ""} |`);
  return ["| Status | Code | Message (en) |", "|---|---|---|", ...rows].join("\n");
}

interface JsonSchema {
  type?: string | string[];
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  enum?: unknown[];
}

const typeOf = (schema: JsonSchema): string => {
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" \\| ");
  if (schema.anyOf)
    return [...new Set(schema.anyOf.map(typeOf))].filter((t) => t !== "unknown").join(" \\| ") || "unknown";
  if (schema.type === "array") return `${typeOf(schema.items ?? {})}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(" \\| ");
  return schema.type ?? (schema.properties ? "object" : "unknown");
};

/** Every option and its first-level fields: type and default from the schema, meaning from its TSDoc. */
function optionTable(): { table: string; undocumented: string[] } {
  const comments = optionDocs(fileURLToPath(new URL("./options/auth-options.ts", import.meta.url)));
  const schema = z.toJSONSchema(authOptionsSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const rows: string[] = [];
  const undocumented: string[] = [];
  const add = (path: string, field: JsonSchema) => {
    const meaning = comments.get(path) ?? "";
    if (!meaning) undocumented.push(path);
    const fallback = field.default === undefined ? "—" : `\`${JSON.stringify(field.default)}\``;
    const shown = field.properties && field.default !== undefined ? "see below" : fallback;
    rows.push(`| \`${path}\` | ${typeOf(field)} | ${shown} | ${meaning} |`);
  };
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    add(name, field);
    const nested = field.properties ?? field.anyOf?.find((option) => option.properties)?.properties;
    if (nested && name !== "stores" && name !== "locales")
      for (const [child, childField] of Object.entries(nested)) {
        if (!childField.properties) add(`${name}.${child}`, childField);
      }
  }
  return {
    table: ["| Option | Type | Default | Meaning |", "|---|---|---|---|", ...rows].join("\n"),
    undocumented,
  };
}

/** `file` with the text between `<!-- name:start -->` and `<!-- name:end -->` replaced. */
function fill(file: string, name: string, generated: string): { current: string; wanted: string } {
  const current = readFileSync(`${DOCS}${file}`, "utf8");
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from === -1 || to === -1) throw new Error(`${file} has no ${start} … ${end} markers`);
  const wanted = `${current.slice(0, from + start.length)}\n${generated}\n${current.slice(to)}`;
  if (process.env.UPDATE_DOCS === "1" && wanted !== current) writeFileSync(`${DOCS}${file}`, wanted);
  return { current, wanted };
}

describe("docs", () => {
  it("docs - docs/configuration.md lists every option with its type, default and TSDoc; none is undocumented", () => {
    const { table, undocumented } = optionTable();
    expect(undocumented).toEqual([]);
    const { current, wanted } = fill("configuration.md", "options", table);
    expect(current).toBe(wanted);
  });

  it("docs - the route table in docs/http-api.md is the code's route table", () => {
    const { current, wanted } = fill("http-api.md", "routes", routeTable());
    expect(current).toBe(wanted);
  });

  it("docs - the error table in docs/errors.md is the code's status table with the English messages", () => {
    const { current, wanted } = fill("errors.md", "errors", errorTable());
    expect(current).toBe(wanted);
  });
});
