import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import { createCookies } from "./cookies.js";
import { createHttpHandler } from "./handler.js";
import { buildRoutes } from "./routes.js";

const auth = createAuth({
  secret: "openapi-secret-0123456789-abcdefghijklmnop",
  stores: createMemoryStores({ sweepIntervalMs: 0 }),
  email: { enabled: false },
});
const handler = createHttpHandler(auth);

async function fetchDocument() {
  const response = await handler.handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} });
  expect(response?.status).toBe(200);
  return JSON.parse(response?.body ?? "{}") as {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        { summary: string; requestBody?: { content: Record<string, { schema: { properties?: object } }> } }
      >
    >;
  };
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
});
