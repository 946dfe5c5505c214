import { z } from "zod";
import { ERROR_CODES } from "../errors.js";
import type { Route, RouteAuth } from "./route.js";

const SECURITY: Record<RouteAuth, Record<string, string[]>[] | undefined> = {
  none: [],
  optional: [{}, { bearer: [] }, { accessCookie: [] }],
  access: [{ bearer: [] }, { accessCookie: [] }],
  "step-up": [
    { bearer: [], stepUpHeader: [] },
    { accessCookie: [], stepUpCookie: [] },
  ],
  "two-factor": [{ twoFactorHeader: [] }, { twoFactorCookie: [] }],
  refresh: [{ bearer: [] }, { refreshCookie: [] }],
};

const ERROR_SCHEMA = {
  type: "object",
  required: ["status", "code", "message", "path", "timestamp"],
  properties: {
    status: { type: "integer" },
    code: { type: "string", enum: [...ERROR_CODES] },
    message: { type: "string", description: "Localized; `code` never is." },
    path: { type: "string" },
    timestamp: { type: "string", format: "date-time" },
    remaining: { type: "integer", description: "Seconds left, on 429s (also in `Retry-After`)." },
    errors: {
      type: "array",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
      },
    },
  },
} as const;

/** The OpenAPI 3.1 document of every route under `basePath`, read from the route table itself. */
export function buildOpenApiDocument(routes: readonly Route[], basePath: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `${basePath}${route.path}`.replace(/:(\w+)/g, "{$1}");
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const queryParams = [...(route.query ?? []), "locale"].map((name) => ({
      name,
      in: "query",
      required: false,
      schema: { type: "string" },
      ...(name === "locale" ? { description: "A locale for emails and messages, e.g. `de`." } : {}),
    }));
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c = "") => c.toUpperCase())}`,
      security: SECURITY[route.auth],
      parameters: [...pathParams, ...queryParams],
      ...(route.body
        ? {
            requestBody: {
              required: !route.body.safeParse(undefined).success,
              content: {
                "application/json": {
                  schema: z.toJSONSchema(route.body, { io: "input", unrepresentable: "any" }),
                },
              },
            },
          }
        : {}),
      responses: {
        "200": { description: "Success", content: { "application/json": { schema: { type: "object" } } } },
        default: {
          description: "An error of the contract's table; the code is also in the `Auth-Error-Code` header.",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Portcullis",
      version: "1",
      description: "Authentication routes mounted by a Portcullis adapter.",
    },
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "An access token (or, for /refresh, a refresh token).",
        },
        accessCookie: { type: "apiKey", in: "cookie", name: "access_token" },
        refreshCookie: { type: "apiKey", in: "cookie", name: "refresh_token" },
        twoFactorHeader: { type: "apiKey", in: "header", name: "X-Two-Factor-Authentication-Token" },
        twoFactorCookie: { type: "apiKey", in: "cookie", name: "two_factor_authentication_token" },
        stepUpHeader: { type: "apiKey", in: "header", name: "X-Step-Up-Token" },
        stepUpCookie: { type: "apiKey", in: "cookie", name: "step_up_token" },
      },
    },
  };
}
