import { expect } from "vitest";
import { type AppTests, expectError, PASSWORD } from "./fixture.js";

/** The route table's edges, the host's own routes, and localized messages. */
export const routingTests: AppTests = {
  "routing - unknown paths and wrong methods under the prefix are 404 NOT_FOUND; outside it the host decides":
    async (boot) => {
      const app = await boot();
      expectError(await app.call("unknown path", "GET", "/api/auth/nope"), 404, "NOT_FOUND");
      expectError(await app.call("wrong method", "GET", "/api/auth/login"), 404, "NOT_FOUND");
      expectError(await app.call("bare prefix", "GET", "/api/auth"), 404, "NOT_FOUND");
      expectError(await app.call("prefix slash", "GET", "/api/auth/"), 404, "NOT_FOUND");
      expectError(await app.call("trailing slash", "GET", "/api/auth/me/"), 404, "NOT_FOUND");
      for (const method of ["PUT", "PATCH", "OPTIONS", "QUERY"]) {
        expectError(await app.call(`method ${method}`, method, "/api/auth/login"), 404, "NOT_FOUND");
      }
      const head = await app.call("method HEAD", "HEAD", "/api/auth/me");
      expect(head.status).toBe(404);
      expect(head.headers.get("auth-error-code")).toBe("NOT_FOUND");
      expect(head.text).toBe("");
      const outside = await fetch(`${app.server.baseUrl}/api/authentic`);
      expect(outside.headers.get("auth-error-code")).toBeNull();
      expect(outside.status).toBe(404);
    },

  "routing - a path with malformed percent-encoding under the prefix is 404 NOT_FOUND, as any unknown path":
    async (boot) => {
      const app = await boot();
      // Broken UTF-8 and a stray `%`: routers that decode paths refuse these before any route runs.
      expectError(await app.call("broken utf-8", "GET", "/api/auth/%E0%A4%A"), 404, "NOT_FOUND");
      expectError(await app.call("stray percent", "GET", "/api/auth/me%"), 404, "NOT_FOUND");
      const post = await app.call("malformed post", "POST", "/api/auth/login%ZZ?locale=de", {
        body: { email: "nobody@example.test", password: PASSWORD },
      });
      expectError(post, 404, "NOT_FOUND");
      expect(post.body.path).toBe("/api/auth/login%ZZ");
      expect(post.body.message).toBe(app.auth.translator.errorMessage("NOT_FOUND", "de"));
    },

  "openapi - GET /api/auth/openapi.json is the OpenAPI 3.1 document of every route, as JSON": async (
    boot,
  ) => {
    const app = await boot();
    const reply = await app.call("openapi", "GET", "/api/auth/openapi.json", { record: false });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    const document = reply.body as { openapi?: string; paths?: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe("3.1.0");
    expect(document.paths?.["/api/auth/login"]?.post).toBeDefined();
    expect(document.paths?.["/api/auth/openapi.json"]?.get).toBeDefined();
  },

  "host routes - the adapter's guard gives the principal, and the same 401 codes": async (boot) => {
    const app = await boot();
    const { accessToken, user } = await app.signUp("host@example.test");
    const ok = await app.call("host ok", "GET", "/host/protected", {
      bearer: accessToken,
      record: false,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ userId: user.id, sessionId: expect.any(String) });
    expectError(await app.call("host none", "GET", "/host/protected"), 401, "AUTHENTICATION_REQUIRED");
    expectError(
      await app.call("host bad", "GET", "/host/protected", { bearer: "x.y.z" }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
    const german = await app.call("host locale", "GET", "/host/protected?locale=de");
    expectError(german, 401, "AUTHENTICATION_REQUIRED");
    expect(german.body.message).toBe(app.auth.translator.errorMessage("AUTHENTICATION_REQUIRED", "de"));
    expect(german.body.path).toBe("/host/protected");
    await app.call("host logout", "POST", "/api/auth/logout", { bearer: accessToken });
    expectError(
      await app.call("host after logout", "GET", "/host/protected", { bearer: accessToken }),
      401,
      "ACCESS_TOKEN_INVALID",
    );
  },

  "host routes - the adapter leaves the host's own JSON parsing alone": async (boot) => {
    const app = await boot();
    const echo = await app.call("host echo", "POST", "/host/echo", {
      body: { hello: "world", list: [1, 2] },
      record: false,
    });
    expect(echo.status).toBe(200);
    expect(echo.body).toEqual({ hello: "world", list: [1, 2] });
  },

  "locale - ?locale=de and Accept-Language: de localize the message, never the code": async (boot) => {
    const app = await boot();
    const english = await app.call("locale en", "GET", "/api/auth/me");
    const byQuery = await app.call("locale query", "GET", "/api/auth/me?locale=de");
    const byHeader = await app.call("locale header", "GET", "/api/auth/me", {
      headers: { "accept-language": "de-CH, en;q=0.5" },
    });
    const message = (locale: string) => app.auth.translator.errorMessage("AUTHENTICATION_REQUIRED", locale);
    expect(message("de")).not.toBe(message("en"));
    expect(english.body.message).toBe(message("en"));
    for (const reply of [byQuery, byHeader]) {
      expectError(reply, 401, "AUTHENTICATION_REQUIRED");
      expect(reply.body.message).toBe(message("de"));
    }
    expect(byQuery.body.path).toBe("/api/auth/me");
    const login = await app.call("locale login", "POST", "/api/auth/login?locale=de", {
      body: { email: "nobody@example.test", password: PASSWORD },
    });
    expectError(login, 401, "INVALID_CREDENTIALS");
    expect(login.body.message).toBe(app.auth.translator.errorMessage("INVALID_CREDENTIALS", "de"));
  },
};
