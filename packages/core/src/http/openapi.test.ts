import { createMemoryStores } from "@portcullis/store-memory";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import { ERROR_CODES } from "../errors.js";
import type { AuthOptions } from "../options.js";
import { createCookies } from "./cookies.js";
import { createHttpHandler } from "./handler.js";
import { buildRoutes } from "./routes.js";
import { STATUS_BY_CODE } from "./status.js";
import type { HttpRequest, HttpResponse } from "./types.js";

const auth = createAuth({
  secret: "openapi-secret-QdKO2MbACHwhxhd14u7C8mARlFNKVWQQI_t4p6MbqwM",
  stores: createMemoryStores({ sweepIntervalMs: 0 }),
  email: { enabled: false },
});
const handler = createHttpHandler(auth);

async function fetchDocument() {
  const response = await handler.handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} });
  expect(response?.status).toBe(200);
  return JSON.parse(response?.body ?? "{}") as OpenApiDocument;
}

describe("openapi", () => {
  it("GET /openapi.json - an OpenAPI 3.1 document listing every route of the table with its body schema", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe("3.1.0");
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      "POST /api/auth/register",
      "POST /api/auth/login",
      "POST /api/auth/refresh",
      "DELETE /api/auth/sessions/{id}",
      "POST /api/auth/password/reset",
      "POST /api/auth/2fa/totp/setup",
      "GET /api/auth/openapi.json",
    ]) {
      expect(operations).toContain(expected);
    }
    const table = buildRoutes(auth, createCookies(auth.options)).map(
      (route) => `${route.method} /api/auth${route.path.replace(/:(\w+)/g, "{$1}")}`,
    );
    expect(operations.sort()).toEqual(table.sort());
    const login = document.paths["/api/auth/login"]?.post;
    expect(login?.summary).toMatch(/sign in/i);
    expect(login?.requestBody?.content["application/json"]?.schema.properties).toMatchObject({
      email: { type: "string" },
      password: { type: "string" },
    });
    for (const methods of Object.values(document.paths)) {
      for (const operation of Object.values(methods)) expect(operation.summary.length).toBeGreaterThan(5);
    }
  });

  it("GET /openapi.json - valid OpenAPI 3.1 (the official schema, offline), every schema in it valid JSON Schema 2020-12", async () => {
    const configurations: [string, Partial<AuthOptions>][] = [
      ["default options", {}],
      [
        "another prefix, identity providers, cookies only",
        {
          basePath: "/auth",
          appOrigin: "https://app.example.test",
          identityProviders: [GITHUB],
          allowHeaderAuthentication: false,
        },
      ],
    ];
    for (const [name, overrides] of configurations) {
      const { handle } = createHttpHandler(build(overrides));
      const prefix = overrides.basePath ?? "/api/auth";
      const response = await handle({ method: "GET", url: `${prefix}/openapi.json`, headers: {} });
      const document = JSON.parse(response?.body ?? "{}") as OpenApiDocument;
      const result = await new Validator().validate(
        structuredClone(document) as unknown as Record<string, unknown>,
      );
      expect(result.errors, name).toBeUndefined();
      expect(result.valid, name).toBe(true);
      expect(
        Object.keys(document.paths).every((path) => path.startsWith(`${prefix}/`)),
        name,
      ).toBe(true);
      expectSchemasValid(document);
      const operationIds = Object.values(document.paths).flatMap((methods) =>
        Object.values(methods).map((operation) => operation.operationId),
      );
      expect(new Set(operationIds).size, name).toBe(operationIds.length);
      for (const [path, methods] of Object.entries(document.paths)) {
        const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
        for (const operation of Object.values(methods)) {
          const declared = operation.parameters.filter((p) => p.in === "path").map((p) => p.name);
          expect(declared.sort(), `${path} path parameters`).toEqual(templated);
        }
      }
    }
  });

  it("GET /openapi.json - every error code, once per status: the Error schema and one response per status of STATUS_BY_CODE", async () => {
    const document = await fetchDocument();
    expect(document.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(document.components.headers.AuthErrorCode.schema.enum).toEqual([...ERROR_CODES]);
    const statuses = [...new Set(Object.values(STATUS_BY_CODE))].sort();
    expect(Object.keys(document.components.responses).sort()).toEqual(
      statuses.map((status) => `Error${status}`),
    );
    const documented = documentedCodes(document);
    for (const code of ERROR_CODES) {
      expect(documented.get(STATUS_BY_CODE[code]), code).toContain(code);
      expect(document.components.responses[`Error${STATUS_BY_CODE[code]}`]?.description, code).toContain(
        code,
      );
    }
    expect([...documented.values()].flat().sort()).toEqual([...ERROR_CODES].sort());
    expect(document.components.responses.Error429?.headers?.["Retry-After"]).toBeDefined();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const responses = Object.keys(operation.responses);
        expect(responses, `${method} ${path}`).toContain("default");
        expect(
          responses.filter((status) => /^[23]/.test(status)),
          `${method} ${path}`,
        ).toHaveLength(1);
      }
    }
  });

  it("GET /openapi.json - every answer a route gives (anonymous, signed in, bad body, too large, cross-site) is documented with its code", async () => {
    const auth = build({ appOrigin: "https://app.example.test", identityProviders: [GITHUB] });
    const { handle } = createHttpHandler(auth);
    const document = JSON.parse(
      (await handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} }))?.body ?? "{}",
    ) as OpenApiDocument;
    const documented = documentedCodes(document);
    const send = async (request: HttpRequest) => (await handle(request)) as HttpResponse;
    const json = { "content-type": "application/json", host: "localhost" };
    await send({ method: "POST", url: "/api/auth/register", headers: json, body: JSON.stringify(ACCOUNT) });
    // A fresh session per route: logout and the revoke routes end theirs.
    const signIn = async () => {
      const login = await send({
        method: "POST",
        url: "/api/auth/login",
        headers: json,
        body: JSON.stringify(ACCOUNT),
      });
      return `Bearer ${JSON.parse(login.body ?? "{}").accessToken}`;
    };
    const seen = new Set<number>();
    for (const route of buildRoutes(auth, createCookies(auth.options))) {
      const templated = `/api/auth${route.path.replace(/:(\w+)/g, "{$1}")}`;
      const operation = document.paths[templated]?.[route.method.toLowerCase()];
      const url = `/api/auth${route.path.replace(/:provider/, "github").replace(/:(\w+)/g, "x")}`;
      const unknown = `/api/auth${route.path.replace(/:(\w+)/g, "unknown")}`;
      const body = route.body ? "{}" : undefined;
      const probes: [string, Partial<HttpRequest>][] = [
        ["anonymous", { headers: json, body }],
        ["signed in", { headers: { ...json, authorization: await signIn() }, body }],
        ["unknown parameter", { url: unknown, headers: { ...json, authorization: await signIn() }, body }],
        ["not JSON", { headers: { host: "localhost", "content-type": "text/plain" }, body: "hello" }],
        ["too large", { headers: json, body: JSON.stringify({ email: "x".repeat(20_000) }) }],
        ["cross-site", { headers: { ...json, origin: "https://evil.example.test" }, body: "{}" }],
      ];
      for (const [probe, request] of probes) {
        const response = await send({ method: route.method, url, headers: {}, ...request });
        const where = `${route.method} ${route.path} (${probe}): ${response.status} ${response.headers["auth-error-code"] ?? ""}`;
        seen.add(response.status);
        const code = response.headers["auth-error-code"];
        const responses = Object.keys(operation?.responses ?? {});
        if (code === undefined || HTTP_LAYER_CODES.has(code))
          expect(responses, where).toContain(String(response.status));
        if (code === undefined) continue;
        // A use case's own codes (e.g. EMAIL_DISABLED) may be under `default`, the whole error table.
        if (responses.includes(String(response.status)))
          expect(documented.get(response.status), where).toContain(code);
        else expect(responses, where).toContain("default");
      }
    }
    // The probes reach each response the HTTP layer itself gives.
    for (const status of [200, 302, 400, 401, 403, 404, 413, 415]) expect(seen).toContain(status);
  });
});

/** The codes the HTTP layer answers with before or around a use case: each route documents its own. */
const HTTP_LAYER_CODES = new Set([
  "VALIDATION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "CSRF_REJECTED",
  "NOT_FOUND",
  "AUTHENTICATION_REQUIRED",
  "ACCESS_TOKEN_INVALID",
  "ACCESS_TOKEN_EXPIRED",
  "STEP_UP_REQUIRED",
  "TWO_FACTOR_TOKEN_INVALID",
  "REFRESH_TOKEN_INVALID",
  "INTERNAL_ERROR",
]);
const GITHUB = { type: "github", clientId: "gh-client", clientSecret: "gh-secret" } as const;
const ACCOUNT = { email: "openapi@example.test", password: "a long enough passphrase 42" };

function build(overrides: Partial<AuthOptions>) {
  return createAuth({
    secret: "openapi-secret-QdKO2MbACHwhxhd14u7C8mARlFNKVWQQI_t4p6MbqwM",
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    email: { enabled: false },
    // Quiet: the probes' 503 EMAIL_DISABLED answers are logged as errors.
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...overrides,
  });
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        summary: string;
        requestBody?: { content: Record<string, { schema: { properties?: object } }> };
        operationId: string;
        parameters: { name: string; in: string }[];
        responses: Record<string, unknown>;
      }
    >
  >;
  components: {
    schemas: { Error: { properties: { code: { enum: string[] } } } };
    headers: { AuthErrorCode: { schema: { enum: string[] } } };
    responses: Record<
      string,
      {
        description: string;
        headers?: Record<string, unknown>;
        content?: {
          "application/json": { schema: { allOf: [unknown, { properties: { code: { enum: string[] } } }] } };
        };
      }
    >;
  };
}

/** The codes each `components.responses` entry documents, by status (a 304 has only its description). */
function documentedCodes(document: OpenApiDocument): Map<number, string[]> {
  return new Map(
    Object.entries(document.components.responses).map(([name, response]) => {
      const status = Number(name.replace("Error", ""));
      const schema = response.content?.["application/json"].schema;
      const codes = schema
        ? schema.allOf[1].properties.code.enum
        : ERROR_CODES.filter(
            (code) => STATUS_BY_CODE[code] === status && response.description.includes(code),
          );
      return [status, codes];
    }),
  );
}

/**
 * Every Schema Object of the document (the zod-made bodies included) compiles under JSON Schema
 * 2020-12 with Ajv's strict mode: no unknown keyword, no wrong type, `$ref`s that resolve.
 */
function expectSchemasValid(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: true, validateFormats: false });
  const rewrite = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value).replace(/"#\/components\/schemas\/(\w+)"/g, '"urn:portcullis:$1"'));
  for (const [name, schema] of Object.entries(document.components.schemas))
    ajv.addSchema(rewrite(schema) as object, `urn:portcullis:${name}`);
  const schemas: unknown[] = [];
  const collect = (value: unknown, key = ""): void => {
    if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value && typeof value === "object") {
      if (key === "schema") schemas.push(value);
      else for (const [child, item] of Object.entries(value)) collect(item, child);
    }
  };
  collect({
    paths: document.paths,
    responses: document.components.responses,
    headers: document.components.headers,
  });
  expect(schemas.length).toBeGreaterThan(50);
  for (const schema of schemas) expect(() => ajv.compile(rewrite(schema) as object)).not.toThrow();
  for (const name of Object.keys(document.components.schemas))
    expect(ajv.getSchema(`urn:portcullis:${name}`)).toBeDefined();
}
