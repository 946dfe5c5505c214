import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { en } from "../i18n/en.js";
import type { Route, RouteAuth } from "./route.js";
import { STATUS_BY_CODE } from "./status.js";

type Requirement = Record<string, string[]>;
const ACCESS: Requirement[] = [{ bearer: [] }, { accessCookie: [] }];
const TWO_FACTOR: Requirement[] = [{ twoFactorHeader: [] }, { twoFactorCookie: [] }];

const SECURITY: Record<RouteAuth, Requirement[]> = {
  none: [],
  optional: [{}, ...ACCESS],
  "sign-out": [{}, ...ACCESS, { refreshCookie: [] }],
  access: ACCESS,
  "step-up": [
    { bearer: [], stepUpHeader: [] },
    { accessCookie: [], stepUpCookie: [] },
  ],
  "two-factor": TWO_FACTOR,
  "access-and-two-factor": [
    { bearer: [], twoFactorHeader: [] },
    { accessCookie: [], twoFactorCookie: [] },
  ],
  "access-or-two-factor": [...ACCESS, ...TWO_FACTOR],
  refresh: [{ bearer: [] }, { refreshCookie: [] }],
  admin: [
    { bearer: [], stepUpHeader: [] },
    { accessCookie: [], stepUpCookie: [] },
  ],
};

const ACCESS_ERRORS: readonly ErrorCode[] = [
  "AUTHENTICATION_REQUIRED",
  "ACCESS_TOKEN_INVALID",
  "ACCESS_TOKEN_EXPIRED",
  "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE",
];

/**
 * The answers the HTTP layer gives before a route runs when its credentials are missing or do
 * not authenticate (handler.ts). An optional access token is never refused by the layer: the
 * identity-provider authorize route answers its refusal for a step-up itself.
 */
const AUTH_ERRORS: Record<RouteAuth, readonly ErrorCode[]> = {
  none: [],
  optional: ACCESS_ERRORS,
  "sign-out": [],
  access: ACCESS_ERRORS,
  "step-up": [...ACCESS_ERRORS, "STEP_UP_REQUIRED"],
  "two-factor": ["TWO_FACTOR_TOKEN_INVALID"],
  "access-and-two-factor": [...ACCESS_ERRORS, "TWO_FACTOR_TOKEN_INVALID"],
  "access-or-two-factor": [...ACCESS_ERRORS, "TWO_FACTOR_TOKEN_INVALID"],
  refresh: ["REFRESH_TOKEN_INVALID"],
  admin: [...ACCESS_ERRORS, "ADMIN_REQUIRED", "STEP_UP_REQUIRED"],
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
        required: ["path", "code", "message"],
        properties: {
          path: { type: "string" },
          code: {
            type: "string",
            enum: Object.keys(en.fieldErrors),
            description: "Which rule the field failed (stable; docs/errors.md).",
          },
          message: { type: "string", description: "Localized; `code` never is." },
        },
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

/**
 * The routes that succeed with a 302 (the browser goes to the identity provider and back), not
 * JSON; openapi.test.ts sends every route requests and fails on an answer the document lacks.
 */
const REDIRECTS = new Set(["GET /oauth/:provider/authorize", "GET /oauth/:provider/callback"]);

/**
 * Every error code a route can answer with: its use case's (`route.errors`) and the HTTP layer's
 * around it, read off the route's data: its credentials (`AUTH_ERRORS`), a JSON body (400
 * `VALIDATION_FAILED`, 413, 415), a state change (403 `CSRF_REJECTED`), anything (500 `INTERNAL_ERROR`).
 */
export function errorCodesOf(route: Route): Set<ErrorCode> {
  const codes = new Set<ErrorCode>(AUTH_ERRORS[route.auth]);
  if (route.body) for (const code of BODY_ERRORS) codes.add(code);
  if (route.method !== "GET") codes.add("CSRF_REJECTED");
  for (const code of route.errors) codes.add(code);
  codes.add("INTERNAL_ERROR");
  return codes;
}

const BODY_ERRORS: readonly ErrorCode[] = [
  "VALIDATION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
];

/**
 * One response per error status of the route: its schema's `code` is the enum of the route's codes
 * of that status (in the order of docs/errors.md), also in the `Auth-Error-Code` header; a 429 has
 * `Retry-After`; a 304 has no body, its code is in the header alone.
 */
function errorResponsesOf(route: Route): Record<string, unknown> {
  const routeCodes = errorCodesOf(route);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES) {
    if (!routeCodes.has(code)) continue;
    const status = STATUS_BY_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => {
        const description = `${STATUS_TEXT[status] ?? "Error"}: ${codes.map((code) => `\`${code}\``).join(", ")}.`;
        const headers: Record<string, unknown> = {
          "Auth-Error-Code": {
            description: "The error's code (the same as the body's `code`).",
            required: true,
            schema: { type: "string", enum: codes },
          },
        };
        if (status === 429) headers["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
        if (status === 304) return [String(status), { description, headers }];
        const schema = {
          allOf: [
            { $ref: "#/components/schemas/Error" },
            { type: "object", properties: { status: { const: status }, code: { enum: codes } } },
          ],
        };
        return [String(status), { description, headers, content: { "application/json": { schema } } }];
      }),
  );
}

/** The routes that read the browser's device token (known browsers): cookie, or header with header authentication. */
const READS_DEVICE = new Set([
  "POST /register",
  "POST /login",
  "POST /2fa/login",
  "POST /2fa/recover",
  "GET /oauth/:provider/callback",
  "POST /email-sign-in",
  "POST /passkeys/login",
]);

const DEVICE_PARAMS = [
  {
    name: "X-Device-Token",
    in: "header",
    required: false,
    schema: { type: "string" },
    description: "The `deviceToken` of an earlier sign-in (header clients; browsers send the device cookie).",
  },
  { name: "device_token", in: "cookie", required: false, schema: { type: "string" } },
];

/** The header of a route that can want a CAPTCHA token (`captcha`): the routes that can answer `CAPTCHA_REQUIRED`. */
const CAPTCHA_PARAM = {
  name: "X-Captcha-Token",
  in: "header",
  required: false,
  schema: { type: "string" },
  description:
    "The CAPTCHA widget's token, when the `captcha` option wants one here (or `captchaToken` in the body).",
};

/** The success response (200 or 201 JSON, or the 302 of a redirect route) and the route's error responses. */
function responsesOf(route: Route): Record<string, unknown> {
  const success = REDIRECTS.has(`${route.method} ${route.path}`)
    ? {
        "302": {
          description:
            "A redirect: to the identity provider, or back to the app (a failed callback too, with `?error=<code>`).",
          headers: { Location: { $ref: "#/components/headers/Location" } },
        },
      }
    : {
        [String(route.successStatus ?? 200)]: {
          description:
            route.successStatus === 201 ? "Created" : route.successStatus === 202 ? "Accepted" : "Success",
          content: {
            "application/json": { schema: { type: "object" } },
            ...Object.fromEntries(
              (route.streams ?? []).map((type) => [type, { schema: { type: "string" } }]),
            ),
          },
        },
      };
  return { ...success, ...errorResponsesOf(route) };
}

/** One route's OpenAPI operation: its own (`route.operation`), or read off its data. */
function operationOf(route: Route): Record<string, unknown> {
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
  const operationId = `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c = "") => c.toUpperCase())}`;
  if (route.operation)
    return {
      summary: route.summary,
      operationId,
      ...(pathParams.length > 0 ? { parameters: pathParams } : {}),
      ...route.operation,
    };
  return {
    summary: route.summary,
    operationId,
    security: SECURITY[route.auth],
    "x-portcullis-auth": route.auth,
    parameters: [
      ...pathParams,
      ...queryParams,
      ...(READS_DEVICE.has(`${route.method} ${route.path}`) ? DEVICE_PARAMS : []),
      ...(route.errors.includes("CAPTCHA_REQUIRED") ? [CAPTCHA_PARAM] : []),
    ],
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

/** The OpenAPI 3.1 document of every route under `basePath`, read from the route table itself. */
export function buildOpenApiDocument(routes: readonly Route[], basePath: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `${basePath}${route.path}`.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationOf(route);
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
      headers: {
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
