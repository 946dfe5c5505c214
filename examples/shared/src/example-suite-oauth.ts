import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher } from "@portcullis/core";
import { expect } from "vitest";
import { readConfig } from "./config.js";
import type { ExampleFixture, ExampleTests } from "./example-suite-fixture.js";
import { createExampleAuth } from "./setup.js";

// `GET /api/projects` with the OAuth provider's access tokens (docs/examples.md): the example's own
// app started with OAUTH_PROVIDER on and two confidential clients from OAUTH_CLIENTS_FILE, their
// client-credentials tokens sent as a bearer token.

const APP_ORIGIN = "http://localhost:3000";
/** The example API's identifier: the `resource` a client asks for, the tokens' `aud`. */
const API = `${APP_ORIGIN}/api`;
const SECRET = "reports-secret-0123456789abcdef";
const CLIENTS = [
  {
    clientId: "reports",
    name: "Reports",
    clientSecret: SECRET,
    redirectUris: [],
    grants: ["client_credentials"],
    scopes: ["projects:read"],
  },
  // May not ask for projects:read: its tokens carry no scope of the example's API.
  {
    clientId: "no-projects",
    name: "No projects",
    clientSecret: SECRET,
    redirectUris: [],
    grants: ["client_credentials"],
    scopes: ["openid"],
  },
];

/** The example with the provider on, started by the suite's own `start`; `body` runs against its base URL. */
async function withProvider(f: ExampleFixture, body: (base: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-oauth-projects-"));
  const clientsFile = join(dir, "clients.json");
  await writeFile(clientsFile, JSON.stringify(CLIENTS));
  const config = readConfig({
    SEED_FILE: f.seedFile,
    AUTH_SECRET: "example-oauth-secret-2mQ8vR4kT0xY6bN1cJ7hL3pW9sD5fG0aZ2eU8iO4qK6",
    APP_ORIGIN,
    OAUTH_PROVIDER: "true",
    OAUTH_CLIENTS_FILE: clientsFile,
  });
  const example = await createExampleAuth(config, {
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  });
  const server = await f.options.start(example);
  try {
    await body(server.baseUrl);
  } finally {
    await server.close();
    example.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A client-credentials token of `clientId` (`resource` when given), as a client asks for one. */
async function clientToken(base: string, clientId: string, resource?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  if (resource) form.set("resource", resource);
  const response = await fetch(`${base}/api/auth/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${clientId}:${SECRET}`).toString("base64")}`,
    },
    body: form,
  });
  const answer = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer.access_token ?? "";
}

/** `GET /api/projects` with `token` as the bearer token: status, `WWW-Authenticate`, body. */
async function readProjects(base: string, token?: string) {
  const response = await fetch(`${base}/api/projects`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return {
    status: response.status,
    challenge: response.headers.get("www-authenticate"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** A seeded user's session in a new organization of theirs, made active: its access token and the organization. */
async function memberSession(base: string) {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${base}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const login = await post("/login", { email: "ada@example.test", password: "correct horse battery staple" });
  const created = await post("/organizations", { name: "OAuth projects" }, login.accessToken as string);
  const organizationId = (created.organization as { id: string }).id;
  const active = await post(`/organizations/${organizationId}/activate`, {}, login.accessToken as string);
  return { token: active.accessToken as string, organizationId };
}

/** The tests of `GET /api/projects` with the provider's tokens, joined into the example suite's. */
export const OAUTH_PROJECTS_TESTS: ExampleTests = {
  "oauth projects - with OAUTH_PROVIDER, GET /api/projects takes a token for <appOrigin>/api with projects:read (200 { userId, clientId, scopes }); without the scope 403, for another audience 401; a session's token still answers { organizationId }":
    Object.assign(
      (f: ExampleFixture) =>
        withProvider(f, async (base) => {
          const read = await readProjects(base, await clientToken(base, "reports", API));
          expect([read.status, read.body]).toEqual([
            200,
            { userId: null, clientId: "reports", scopes: ["projects:read"] },
          ]);
          const noScope = await readProjects(base, await clientToken(base, "no-projects", API));
          expect([noScope.status, noScope.body.error]).toEqual([403, "insufficient_scope"]);
          expect(noScope.challenge).toMatch(/^Bearer error="insufficient_scope".*scope="projects:read"/);
          // No resource: the token's audience is the client itself, not the example's API.
          const otherAudience = await readProjects(base, await clientToken(base, "reports"));
          expect([otherAudience.status, otherAudience.body.error]).toEqual([401, "invalid_token"]);
          // Another resource of the app's origin: a token the provider issues, for another API.
          const elsewhere = await readProjects(
            base,
            await clientToken(base, "reports", `${APP_ORIGIN}/other`),
          );
          expect([elsewhere.status, elsewhere.body.error]).toEqual([401, "invalid_token"]);
          // A session's access token (also `typ: at+jwt`, signed HS256) and no token: as before.
          const member = await memberSession(base);
          expect(await readProjects(base, member.token)).toMatchObject({
            status: 200,
            body: { organizationId: member.organizationId },
          });
          const anonymous = await readProjects(base);
          expect([anonymous.status, anonymous.body.code]).toEqual([401, "AUTHENTICATION_REQUIRED"]);
        }),
      {
        timeout: 30_000,
        // Once per framework: the suites with a database of their own would run the same memory app again.
        skipIf: (options: ExampleFixture["options"]) => options.env !== undefined,
      },
    ),
};
