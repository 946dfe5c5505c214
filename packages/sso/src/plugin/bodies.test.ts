import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionBody, domainBody, startBody } from "./bodies.js";
import { type SsoHost, startSsoHost } from "./test-sso-server.js";

let host: SsoHost;

beforeAll(async () => {
  host = await startSsoHost();
});
afterAll(() => host?.close());

describe("the routes' bodies in the OpenAPI document", () => {
  it("bodies.ts - takes the bodies the routes accept, and not those of another shape", () => {
    for (const body of [
      { type: "saml", metadataXml: "<EntityDescriptor/>", domains: ["acme.test"], ssoRequired: true },
      {
        type: "saml",
        entityId: "urn:idp",
        ssoUrl: "https://idp.test/sso",
        certificate: "PEM",
        idpInitiated: true,
      },
      { type: "saml", entityId: "urn:idp", ssoUrl: "https://idp.test/sso", certificates: ["A", "B"] },
      { type: "oidc", issuer: "https://idp.test", clientId: "c", clientSecret: "s", defaultRole: "admin" },
    ])
      expect(connectionBody.safeParse(body).success, JSON.stringify(body)).toBe(true);
    for (const body of [{ type: "ldap" }, { type: "oidc", issuer: "https://idp.test" }, { type: "saml" }])
      expect(connectionBody.safeParse(body).success, JSON.stringify(body)).toBe(false);
    expect(domainBody.safeParse({ domain: "acme.test" }).success).toBe(true);
    expect(startBody.safeParse({ email: "a@acme.test", returnTo: "/app" }).success).toBe(true);
    expect(startBody.safeParse({ organization: "acme" }).success).toBe(true);
    expect(startBody.safeParse({}).success).toBe(false);
  });

  it("GET /openapi.json - shows the JSON body of adding a connection, claiming a domain and starting a sign-in", async () => {
    const response = await fetch(`${host.api}/openapi.json`);
    const document = (await response.json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    const bodyOf = (path: string) =>
      JSON.stringify(document.paths[path]?.post?.requestBody?.content["application/json"]?.schema ?? null);
    expect(bodyOf("/api/auth/organizations/{id}/sso/connections")).toContain('"clientSecret"');
    expect(bodyOf("/api/auth/organizations/{id}/sso/connections")).toContain('"metadataXml"');
    expect(bodyOf("/api/auth/organizations/{id}/domains")).toContain('"domain"');
    expect(bodyOf("/api/auth/sso/start")).toContain('"organization"');
    expect(bodyOf("/api/auth/sso/step-up")).toContain('"returnTo"');
    expect(document.paths["/api/auth/sso/step-up"]?.post?.requestBody).toMatchObject({ required: false });
  });
});
