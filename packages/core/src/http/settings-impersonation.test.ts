import { describe, expect, it } from "vitest";
import { createTestAuth, PASSWORD } from "../test-support.js";
import { createHttpHandler } from "./handler.js";
import type { HttpRequest } from "./types.js";

/**
 * A settings change by an impersonation (a session `host.impersonate` made) is refused before its
 * step-up token is looked at (`requireStepUp`): 403 `IMPERSONATION_NOT_ALLOWED`, the code its
 * `USE_CASE_ERRORS` entry names and the OpenAPI document lists for the route.
 */
async function setup() {
  const env = createTestAuth({ allowHeaderAuthentication: true, email: { enabled: false } });
  const user = await env.auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD });
  const { accessToken } = await env.auth.host.impersonate({ actor: "support" }, user.id);
  return { ...env, accessToken, handler: createHttpHandler(env.auth) };
}

const exportRequest = (accessToken: string): HttpRequest => ({
  method: "GET",
  url: "/api/auth/me/export",
  headers: { authorization: `Bearer ${accessToken}`, "x-step-up-token": "any" },
});

describe("settings by an impersonation", () => {
  it("GET /me/export - an impersonation with a step-up token is 403 IMPERSONATION_NOT_ALLOWED", async () => {
    const { handler, accessToken } = await setup();
    const answer = await handler.handle(exportRequest(accessToken));
    expect(answer?.status).toBe(403);
    expect(answer?.headers["auth-error-code"]).toBe("IMPERSONATION_NOT_ALLOWED");
  });

  it("GET /openapi.json - the 403 of GET /me/export lists IMPERSONATION_NOT_ALLOWED", async () => {
    const { handler } = await setup();
    const answer = await handler.handle({ method: "GET", url: "/api/auth/openapi.json", headers: {} });
    const document = JSON.parse(String(answer?.body)) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >;
    };
    const forbidden = document.paths["/api/auth/me/export"]?.get?.responses["403"];
    expect(forbidden?.headers?.["Auth-Error-Code"]).toMatchObject({
      schema: { enum: expect.arrayContaining(["IMPERSONATION_NOT_ALLOWED"]) },
    });
  });
});
