import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import type { Route, RouteAuth } from "./route.js";
import { STATUS_BY_CODE } from "./status.js";

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

const STATUS_TEXT: Record<number, string> = {
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** Every error status of `STATUS_BY_CODE`, ascending, with its codes. */
const CODES_BY_STATUS = new Map<number, ErrorCode[]>();
for (const code of ERROR_CODES) {
  const status = STATUS_BY_CODE[code];
  CODES_BY_STATUS.set(status, [...(CODES_BY_STATUS.get(status) ?? []), code]);
}
const ERROR_STATUSES = [...CODES_BY_STATUS.keys()].sort((a, b) => a - b);

/**
 * The routes that succeed with a 302 (the browser goes to the identity provider and back), not
 * JSON; openapi.test.ts sends every route requests and fails on an answer the document lacks.
 */
const REDIRECTS = new Set(["GET /oauth/:provider/authorize", "GET /oauth/:provider/callback"]);

/**
 * The error statuses the HTTP layer itself may answer a route with, read off the route's data:
 * a JSON body (400 validation, 413, 415) or query parameters (400), a state change (403 CSRF),
 * a credential or a link token (401), a path parameter (404 for an unknown one), anything (500).
 * The other codes a use case may answer with are under `default` (every code of docs/errors.md).
 */
function errorStatusesOf(route: Route): number[] {
  const statuses = new Set([500]);
  if (route.body) for (const status of [413, 415]) statuses.add(status);
  if (route.body || route.query?.length) statuses.add(400);
  if (route.method !== "GET") statuses.add(403);
  if (route.auth !== "none" || route.query?.includes("token")) statuses.add(401);
  if (route.path.includes("/:")) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

/** `components.responses`: one error response per status, its schema narrowed to that status's codes. */
function errorResponses(): Record<string, unknown> {
  return Object.fromEntries(
    ERROR_STATUSES.map((status) => {
      const codes = CODES_BY_STATUS.get(status) ?? [];
      const description = `${STATUS_TEXT[status] ?? "Error"}: ${codes.map((code) => `\`${code}\``).join(", ")}.`;
      const headers: Record<string, unknown> = {
        "Auth-Error-Code": { $ref: "#/components/headers/AuthErrorCode" },
      };
      if (status === 429) headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
      // A 304 has no body: the code is in the header alone.
      if (status === 304) return [`Error${status}`, { description, headers }];
      const schema = {
        allOf: [
          { $ref: "#/components/schemas/Error" },
          { type: "object", properties: { status: { const: status }, code: { enum: codes } } },
        ],
      };
      return [`Error${status}`, { description, headers, content: { "application/json": { schema } } }];
    }),
  );
}

/** The success response (200 JSON, or the 302 of a redirect route) and the route's error responses. */
function responsesOf(route: Route): Record<string, unknown> {
  const success = REDIRECTS.has(`${route.method} ${route.path}`)
    ? {
        "302": {
          description:
            "A redirect: to the identity provider, or back to the app (a failed callback too, with `?error=<code>`).",
          headers: { Location: { $ref: "#/components/headers/Location" } },
        },
      }
    : { "200": { description: "Success", content: { "application/json": { schema: { type: "object" } } } } };
  return {
    ...success,
    ...Object.fromEntries(
      errorStatusesOf(route).map((status) => [
        String(status),
        { $ref: `#/components/responses/Error${status}` },
      ]),
    ),
    default: {
      description:
        "Any other error of the contract's table (docs/errors.md); the code is also in the `Auth-Error-Code` header.",
      headers: { "Auth-Error-Code": { $ref: "#/components/headers/AuthErrorCode" } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    },
  };
}

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
      responses: responsesOf(route),
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
      responses: errorResponses(),
      headers: {
        AuthErrorCode: {
          description: "The error's code (the same as the body's `code`).",
          schema: { type: "string", enum: [...ERROR_CODES] },
        },
        RetryAfter: {
          description: "Seconds until the limit lets the request through.",
          schema: { type: "integer" },
        },
        Location: { description: "Where the browser goes next.", schema: { type: "string", format: "uri" } },
      },
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
