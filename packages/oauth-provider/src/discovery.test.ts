import { describe, expect, it } from "vitest";
import { protectedResourceMetadata, providerMetadata } from "./discovery.js";

const ISSUER = "https://app.example.test/api/auth";

describe("providerMetadata", () => {
  it("every endpoint under <issuer>/oauth2/; the profile served: code + S256, query with iss, four grants", () => {
    const metadata = providerMetadata({
      issuer: ISSUER,
      dynamicRegistration: false,
      scopes: ["projects:read"],
      algorithms: ["ES256"],
    });
    expect(metadata).toEqual({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth2/authorize`,
      token_endpoint: `${ISSUER}/oauth2/token`,
      userinfo_endpoint: `${ISSUER}/oauth2/userinfo`,
      jwks_uri: `${ISSUER}/oauth2/jwks`,
      revocation_endpoint: `${ISSUER}/oauth2/revoke`,
      introspection_endpoint: `${ISSUER}/oauth2/introspect`,
      device_authorization_endpoint: `${ISSUER}/oauth2/device_authorization`,
      scopes_supported: ["openid", "profile", "email", "offline_access", "projects:read"],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: [
        "authorization_code",
        "refresh_token",
        "client_credentials",
        "urn:ietf:params:oauth:grant-type:device_code",
      ],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      introspection_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
      claims_supported: expect.arrayContaining([
        "sub",
        "email",
        "email_verified",
        "name",
        "nonce",
        "auth_time",
      ]),
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      authorization_response_iss_parameter_supported: true,
      prompt_values_supported: ["none", "login", "consent"],
    });
    expect(metadata).not.toHaveProperty("registration_endpoint");
  });

  it("registration_endpoint only with dynamic registration", () => {
    const metadata = providerMetadata({
      issuer: ISSUER,
      dynamicRegistration: true,
      scopes: [],
      algorithms: ["EdDSA"],
    });
    expect(metadata.registration_endpoint).toBe(`${ISSUER}/oauth2/register`);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["EdDSA"]);
  });

  it("the host's scopes follow the standard ones once each; a trailing slash of the issuer makes no double slash", () => {
    const metadata = providerMetadata({
      issuer: "https://id.example.test/",
      dynamicRegistration: false,
      scopes: ["email", "b", "a", "b"],
      algorithms: ["ES256", "ES256"],
    });
    expect(metadata.issuer).toBe("https://id.example.test/");
    expect(metadata.token_endpoint).toBe("https://id.example.test/oauth2/token");
    expect(metadata.scopes_supported).toEqual(["openid", "profile", "email", "offline_access", "b", "a"]);
    expect(metadata.id_token_signing_alg_values_supported).toEqual(["ES256"]);
  });

  it("each call is a fresh document: changing one changes no other", () => {
    const options = { issuer: ISSUER, dynamicRegistration: false, scopes: [], algorithms: ["ES256"] };
    const first = providerMetadata(options);
    (first.grant_types_supported as string[]).push("password");
    (first.token_endpoint_auth_methods_supported as string[]).pop();
    const second = providerMetadata(options);
    expect(second.grant_types_supported).not.toContain("password");
    expect(second.token_endpoint_auth_methods_supported).toContain("none");
  });
});

describe("protectedResourceMetadata", () => {
  it("RFC 9728: resource, authorization servers, header bearer tokens, scopes when given", () => {
    expect(
      protectedResourceMetadata({
        resource: "https://mcp.example.test",
        authorizationServers: [ISSUER],
        scopes: ["projects:read", "projects:write"],
      }),
    ).toEqual({
      resource: "https://mcp.example.test",
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
      scopes_supported: ["projects:read", "projects:write"],
    });
    expect(
      protectedResourceMetadata({ resource: "https://api.example.test", authorizationServers: [ISSUER] }),
    ).toEqual({
      resource: "https://api.example.test",
      authorization_servers: [ISSUER],
      bearer_methods_supported: ["header"],
    });
  });
});
