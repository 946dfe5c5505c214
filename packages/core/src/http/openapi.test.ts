import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createMemoryStores } from "@portcullis/store-memory";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import type { AuthOptionFields } from "../options/options.js";
import { createEveryRouteAuth } from "../test-support.js";
import { createCookies } from "./cookies.js";
import { createHttpHandler } from "./handler.js";
import { buildRoutes } from "./routes.js";
import { STATUS_BY_CODE } from "./status.js";
import type { HttpRequest, HttpResponse } from "./types.js";

// The back office's routes are in the document only when the host names its admins, and the
// organizations', API keys' and webhooks' only when they are on.
const auth = createEveryRouteAuth();
const handler = createHttpHandler(auth);

async function fetchDocument() {
  const response = await handler.handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} });
  expect(response?.status).toBe(200);
  return JSON.parse(response?.body ?? "{}") as OpenApiDocument;
}

/** Once per file: the document and the OpenAPI validator (compiling its schema takes seconds); the tests only read them. */
let defaultDocument: OpenApiDocument;
let validator: Validator;
beforeAll(async () => {
  defaultDocument = await fetchDocument();
  validator = new Validator();
});

describe("openapi", () => {
  it("GET /openapi.json - an OpenAPI 3.1 document listing every route of the table with its body schema", async () => {
    const document = defaultDocument;
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
    const configurations: [string, Omit<Partial<AuthOptionFields>, "email">][] = [
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
      const result = await validator.validate(
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

  it("GET /openapi.json - each operation's errors by status, the code an enum of the route's codes of that status", async () => {
    const document = defaultDocument;
    expect(document.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method} ${path}`;
        expect(Object.keys(operation.responses), where).not.toContain("default");
        expect(
          Object.keys(operation.responses).filter((status) => /^(200|201|202|302)$/.test(status)),
          where,
        ).toHaveLength(1);
        for (const [status, response] of Object.entries(operation.responses)) {
          if (/^(200|201|202|302)$/.test(status)) continue;
          const codes = codesOf(operation, Number(status));
          expect(codes.length, where).toBeGreaterThan(0);
          for (const code of codes)
            expect(STATUS_BY_CODE[code as ErrorCode], `${where} ${code}`).toBe(Number(status));
          expect(response.description, where).toContain(codes[0]);
          if (status === "304") expect(response.content, where).toBeUndefined();
          else
            expect(response.content?.["application/json"].schema.allOf[1].properties.code.enum).toEqual(
              codes,
            );
          if (status === "429") expect(response.headers?.["Retry-After"], where).toBeDefined();
        }
        // Every operation can fail unexpectedly; a state change can be cross-site.
        expect(codesOf(operation, 500), where).toContain("INTERNAL_ERROR");
        if (method !== "get") expect(codesOf(operation, 403), where).toContain("CSRF_REJECTED");
      }
    }
    // The answers of the issue that found them missing: the verification resend table, login's 401.
    const resend = document.paths["/api/auth/email/verification/send"]?.post;
    expect(resend && codesOf(resend, 304)).toEqual(["EMAIL_ALREADY_VERIFIED"]);
    expect(resend && codesOf(resend, 404)).toEqual(["USER_NOT_FOUND"]);
    expect(resend && codesOf(resend, 429)).toEqual(["EMAIL_COOLDOWN_ACTIVE", "RATE_LIMITED"]);
    expect(resend && codesOf(resend, 503)).toEqual(["EMAIL_DISABLED"]);
    expect(resend && codesOf(resend, 401)).toEqual([
      "ACCESS_TOKEN_EXPIRED",
      "ACCESS_TOKEN_INVALID",
      "AUTHENTICATION_REQUIRED",
    ]);
    const login = document.paths["/api/auth/login"]?.post;
    expect(login && codesOf(login, 401)).toEqual(["INVALID_CREDENTIALS"]);
    expect(login && codesOf(login, 429)).toEqual(["LOGIN_THROTTLED"]);
    const settings = document.paths["/api/auth/2fa/preferred-method"]?.post;
    expect(settings && codesOf(settings, 401)).toContain("STEP_UP_REQUIRED");
    expect(settings?.["x-portcullis-auth"]).toBe("step-up");
  });

  it("GET /openapi.json - every (method, path, status, code) of the adapter suite's golden transcripts is in the document", async () => {
    const document = defaultDocument;
    const templates = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}$`),
    }));
    const files = readdirSync(TRANSCRIPTS).filter((file) => file.endsWith(".txt"));
    expect(files.length).toBeGreaterThan(5);
    const checked = new Set<string>();
    for (const file of files) {
      for (const answer of transcriptAnswers(readFileSync(join(TRANSCRIPTS, file), "utf8"))) {
        if (!answer.path.startsWith("/api/auth/")) continue;
        const where = `${file}: ${answer.method} ${answer.path} -> ${answer.status} ${answer.code ?? ""}`;
        const template = templates.find((candidate) => candidate.pattern.test(answer.path))?.path;
        const operation = template ? document.paths[template]?.[answer.method.toLowerCase()] : undefined;
        if (!template || !operation) {
          // No route: the one answer for a path or method the table lacks.
          expect([answer.status, answer.code], where).toEqual([404, "NOT_FOUND"]);
          continue;
        }
        expect(Object.keys(operation.responses), where).toContain(String(answer.status));
        if (answer.code !== undefined)
          expect(codesOf(operation, answer.status), where).toContain(answer.code);
        checked.add(`${answer.method} ${template} ${answer.status} ${answer.code ?? ""}`);
      }
    }
    // The transcripts reach the answers the issue found missing.
    for (const expected of [
      "POST /api/auth/email/verification/send 429 EMAIL_COOLDOWN_ACTIVE",
      "POST /api/auth/email/verification/send 304 EMAIL_ALREADY_VERIFIED",
      "POST /api/auth/login 401 INVALID_CREDENTIALS",
    ])
      expect(checked).toContain(expected);
    expect(checked.size).toBeGreaterThan(40);
  });

  it("GET /openapi.json - every answer a route gives (anonymous, signed in, bad body, too large, cross-site) is documented with its code", async () => {
    const auth = build({ appOrigin: "https://app.example.test", identityProviders: [GITHUB] });
    const { handle } = createHttpHandler(auth);
    const document = JSON.parse(
      (await handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} }))?.body ?? "{}",
    ) as OpenApiDocument;
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
        expect(Object.keys(operation?.responses ?? {}), where).toContain(String(response.status));
        if (code !== undefined && operation)
          expect(codesOf(operation, response.status), where).toContain(code);
      }
    }
    // The probes reach each response the HTTP layer itself gives.
    for (const status of [200, 302, 400, 401, 403, 404, 413, 415]) expect(seen).toContain(status);
  });
});

const GITHUB = { type: "github", clientId: "gh-client", clientSecret: "gh-secret" } as const;
const ACCOUNT = { email: "openapi@example.test", password: "a long enough passphrase 42" };

function build(overrides: Omit<Partial<AuthOptionFields>, "email">) {
  return createAuth({
    secret: "openapi-secret-QdKO2MbACHwhxhd14u7C8mARlFNKVWQQI_t4p6MbqwM",
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    email: { enabled: false },
    // The probes sign in twice per route: a cheap hash (the cost is not what this file tests).
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    // Quiet: the probes' 503 EMAIL_DISABLED answers are logged as errors.
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    ...overrides,
  });
}

interface Operation {
  summary: string;
  requestBody?: { content: Record<string, { schema: { properties?: object } }> };
  operationId: string;
  parameters: { name: string; in: string }[];
  "x-portcullis-auth": string;
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, { schema: { enum: string[] } } | undefined>;
      content?: {
        "application/json": { schema: { allOf: [unknown, { properties: { code: { enum: string[] } } }] } };
      };
    }
  >;
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: { Error: { properties: { code: { enum: string[] } } } };
    headers: Record<string, unknown>;
  };
}

/** The codes an operation documents for `status` (the `Auth-Error-Code` header's enum; a 304 has only the header). */
function codesOf(operation: Operation, status: number): string[] {
  return operation.responses[String(status)]?.headers?.["Auth-Error-Code"]?.schema.enum ?? [];
}

/** The transcripts of the adapter suite: every answer (method, path, status, code) of every test. */
const TRANSCRIPTS = fileURLToPath(new URL("../../../testing/transcripts/", import.meta.url));

/**
 * Each exchange of a transcript (packages/testing/src/transcript.ts) starts with
 * `<METHOD> <url> -> <status>`; its code is the `auth-error-code` header that follows.
 */
function transcriptAnswers(text: string): { method: string; path: string; status: number; code?: string }[] {
  const answers: { method: string; path: string; status: number; code?: string }[] = [];
  for (const line of text.split("\n")) {
    const exchange = /^([A-Z]+) (\S+) -> (\d{3})$/.exec(line);
    if (exchange) {
      const [, method = "", url = "", status = ""] = exchange;
      answers.push({ method, path: url.split("?")[0] ?? "", status: Number(status) });
      continue;
    }
    const code = /^auth-error-code: (\S+)$/.exec(line)?.[1];
    const last = answers.at(-1);
    if (code && last && last.code === undefined) last.code = code;
  }
  return answers;
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
    headers: document.components.headers,
  });
  expect(schemas.length).toBeGreaterThan(50);
  // Each distinct schema compiled once: most are an error answer's, repeated by operation and status.
  const distinct = new Set(schemas.map((schema) => JSON.stringify(rewrite(schema))));
  for (const schema of distinct) expect(() => ajv.compile(JSON.parse(schema) as object)).not.toThrow();
  for (const name of Object.keys(document.components.schemas))
    expect(ajv.getSchema(`urn:portcullis:${name}`)).toBeDefined();
}
