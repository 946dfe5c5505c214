import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProvider, type TestProvider } from "./test-provider.js";

let provider: TestProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

type Operation = {
  summary?: string;
  operationId?: string;
  responses?: Record<string, unknown>;
  parameters?: unknown[];
};

describe("the OpenAPI document with the provider on", () => {
  it("lists every provider route with its own operation: RFC 6749 errors, form bodies, path parameters", async () => {
    const document = (await (await fetch(`${provider.issuer}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        operation,
      })),
    );
    const routes = operations.map(({ route }) => route);
    for (const route of [
      "GET /api/auth/.well-known/openid-configuration",
      "GET /api/auth/oauth2/jwks",
      "GET /api/auth/oauth2/authorize",
      "POST /api/auth/oauth2/consent",
      "POST /api/auth/oauth2/token",
      "GET /api/auth/oauth2/userinfo",
      "POST /api/auth/oauth2/revoke",
      "POST /api/auth/oauth2/introspect",
      "GET /api/auth/oauth2/grants",
      "DELETE /api/auth/oauth2/grants/{clientId}",
      "POST /api/auth/oauth2/device_authorization",
    ])
      expect(routes).toContain(route);
    // Every operation has a summary, a unique id and its responses.
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { route, operation } of operations) {
      expect(operation.summary, route).toBeTruthy();
      expect(Object.keys(operation.responses ?? {}).length, route).toBeGreaterThan(0);
    }
    const token = document.paths["/api/auth/oauth2/token"]?.post as Operation & {
      requestBody: { content: Record<string, unknown> };
    };
    expect(Object.keys(token.requestBody.content)).toEqual(["application/x-www-form-urlencoded"]);
    expect(token.responses?.["400"]).toMatchObject({ description: expect.stringContaining("RFC 6749") });
    const withdraw = document.paths["/api/auth/oauth2/grants/{clientId}"]?.delete;
    expect(withdraw?.parameters).toEqual([
      { name: "clientId", in: "path", required: true, schema: { type: "string" } },
    ]);
  });
});
