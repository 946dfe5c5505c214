import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeAndApprove,
  CLIENT_SECRET,
  codeFlow,
  PASSWORD,
  relyingParty,
  startProvider,
  type TestProvider,
} from "./test-provider.js";

const ADMIN = "admin@example.test";

/** Header credentials of a caller: the access token, and the step-up token when it has one. */
interface Caller {
  accessToken: string;
  stepUpToken?: string;
}

let provider: TestProvider;
let admin: Caller & { userId: string };

beforeAll(async () => {
  provider = await startProvider({}, { admin: { authorize: (_principal, user) => user.email === ADMIN } });
  admin = await signedIn(provider, ADMIN);
});
afterAll(() => provider.close());

/** A new user of `provider`, signed in (header tokens), with a step-up token of that session. */
async function signedIn(target: TestProvider, email: string): Promise<Caller & { userId: string }> {
  const user = await target.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  const { accessToken } = await target.auth.sessions.create({}, { userId: user.id });
  const principal = await target.auth.authenticate({ token: accessToken });
  const stepped = await target.auth.stepUp({ principal }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("no 2FA expected");
  return { userId: user.id, accessToken, stepUpToken: stepped.stepUpToken };
}

/** A request to `<prefix><path>` as `caller`: status and JSON body. */
async function send(
  target: TestProvider,
  caller: Caller | null,
  method: string,
  path: string,
  body?: unknown,
) {
  const headers: Record<string, string> = {};
  if (caller !== null) headers.authorization = `Bearer ${caller.accessToken}`;
  if (caller?.stepUpToken) headers["x-step-up-token"] = caller.stepUpToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${target.issuer}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: text === "" ? null : JSON.parse(text) };
}

/**
 * A refused token request's status and RFC 6749 body (openid-client reports a 401 by its
 * `WWW-Authenticate` challenge, the body left unread on its `response`).
 */
async function refusal(request: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  const error = await request.then(
    () => {
      throw new Error("the request was not refused");
    },
    (refused: { status: number; response: Response }) => refused,
  );
  return { status: error.status, body: await error.response.json() };
}

describe("the back office's clients: /oauth2/clients", () => {
  it("POST creates a confidential client (its secret once), which authenticates; rotation replaces the secret at once", async () => {
    const created = await send(provider, admin, "POST", "/oauth2/clients", {
      clientId: "reports",
      name: "The reports job",
      confidential: true,
      redirectUris: [],
      grantTypes: ["client_credentials"],
      scopes: ["projects:read"],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      client: {
        clientId: "reports",
        name: "The reports job",
        confidential: true,
        redirectUris: [],
        grantTypes: ["client_credentials"],
        scopes: ["projects:read"],
        dynamic: false,
        createdAt: new Date(provider.clock.now()).toISOString(),
      },
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(created.text).not.toContain("secretHash");
    const first = created.body.clientSecret as string;
    const reports = await relyingParty(provider, "reports", first);
    expect(
      (await client.clientCredentialsGrant(reports, { scope: "projects:read" })).access_token,
    ).toBeTruthy();

    const rotated = await send(provider, admin, "POST", "/oauth2/clients/reports/secret");
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      clientId: "reports",
      clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(rotated.body.clientSecret).not.toBe(first);
    expect(await refusal(client.clientCredentialsGrant(reports, { scope: "projects:read" }))).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
    });
    const renewed = await relyingParty(provider, "reports", rotated.body.clientSecret);
    expect(
      (await client.clientCredentialsGrant(renewed, { scope: "projects:read" })).access_token,
    ).toBeTruthy();

    const publicOne = await send(provider, admin, "POST", "/oauth2/clients/cli/secret");
    expect([publicOne.status, publicOne.body.error]).toEqual([400, "invalid_request"]);
    expect((await send(provider, admin, "POST", "/oauth2/clients/nobody/secret")).status).toBe(404);
  });

  it("POST refuses bad metadata, a foreign scope and a taken id (invalid_client_metadata, invalid_redirect_uri)", async () => {
    const base = { name: "An app", redirectUris: ["https://app.example.test/cb"], scopes: ["openid"] };
    for (const [body, error] of [
      [{ ...base, scopes: ["openid", "billing:write"] }, "invalid_client_metadata"],
      [{ ...base, clientId: "web-app" }, "invalid_client_metadata"],
      [{ ...base, secretHash: "x" }, "invalid_client_metadata"],
      [{ ...base, grantTypes: ["client_credentials"] }, "invalid_client_metadata"],
      [{ ...base, redirectUris: ["http://app.example.test/cb"] }, "invalid_redirect_uri"],
    ] as const) {
      const refused = await send(provider, admin, "POST", "/oauth2/clients", body);
      expect([refused.status, refused.body.error], JSON.stringify(body)).toEqual([400, error]);
    }
  });

  it("GET lists every client a page at a time by id (after, limit), never a secret's hash", async () => {
    await send(provider, admin, "POST", "/oauth2/clients", {
      clientId: "zz-last",
      name: "Last",
      redirectUris: ["https://last.example.test/cb"],
      scopes: ["openid"],
    });
    const all = (await provider.stores.oauth.listOAuthClients({ limit: 1000 })).map((c) => c.clientId);
    expect(all.length).toBeGreaterThanOrEqual(4);
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const query: string = `?limit=2${after === null ? "" : `&after=${encodeURIComponent(after)}`}`;
      const page = await send(provider, admin, "GET", `/oauth2/clients${query}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain("secretHash");
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((item: { clientId: string }) => item.clientId));
      after = page.body.nextAfter;
    } while (after !== null);
    expect(seen).toEqual(all);
    const webApp = (await send(provider, admin, "GET", "/oauth2/clients?limit=100")).body.items.find(
      (item: { clientId: string }) => item.clientId === "web-app",
    );
    expect(webApp).toMatchObject({
      confidential: true,
      dynamic: false,
      scopes: expect.arrayContaining(["openid"]),
    });
    for (const limit of ["0", "101", "two", "1.5"]) {
      const refused = await send(provider, admin, "GET", `/oauth2/clients?limit=${limit}`);
      expect([refused.status, refused.body.error], limit).toEqual([400, "invalid_request"]);
    }
  });

  it("PATCH changes name, redirect URIs, scopes and grants; the result must be a valid client of the provider", async () => {
    await send(provider, admin, "POST", "/oauth2/clients", {
      clientId: "dashboard",
      name: "Dashboard",
      redirectUris: ["https://dash.example.test/cb"],
      scopes: ["openid"],
    });
    const changed = await send(provider, admin, "PATCH", "/oauth2/clients/dashboard", {
      name: "The dashboard",
      redirectUris: ["https://dash.example.test/callback", "https://dash.example.test/callback"],
      scopes: ["openid", "email", "projects:read"],
    });
    expect(changed.status).toBe(200);
    expect(changed.body.client).toMatchObject({
      clientId: "dashboard",
      name: "The dashboard",
      redirectUris: ["https://dash.example.test/callback"],
      scopes: ["openid", "email", "projects:read"],
      grantTypes: ["authorization_code", "refresh_token"],
    });
    expect(await provider.stores.oauth.getOAuthClient("dashboard")).toMatchObject({
      name: "The dashboard",
      redirectUris: ["https://dash.example.test/callback"],
      secretHash: null,
    });
    for (const [body, error] of [
      [{ scopes: ["openid", "billing:write"] }, "invalid_client_metadata"],
      [{ clientSecret: "a-brand-new-secret-0123456789" }, "invalid_client_metadata"],
      [{ clientId: "renamed" }, "invalid_client_metadata"],
      [{ grantTypes: ["client_credentials"] }, "invalid_client_metadata"],
      [{ redirectUris: [] }, "invalid_redirect_uri"],
      [{ name: "" }, "invalid_client_metadata"],
    ] as const) {
      const refused = await send(provider, admin, "PATCH", "/oauth2/clients/dashboard", body);
      expect([refused.status, refused.body.error], JSON.stringify(body)).toEqual([400, error]);
    }
    expect((await provider.stores.oauth.getOAuthClient("dashboard"))?.name).toBe("The dashboard");
    const absent = await send(provider, admin, "PATCH", "/oauth2/clients/nobody", { name: "x" });
    expect([absent.status, absent.body.error]).toEqual([404, "not_found"]);
  });

  it("DELETE removes the client with its grants and consents: its refresh tokens stop working", async () => {
    const webApp = await relyingParty(provider, "web-app", CLIENT_SECRET);
    const flow = await codeFlow(webApp, {
      redirect_uri: "https://rp.example.test/callback",
      scope: "openid offline_access",
    });
    const tokens = await client.authorizationCodeGrant(
      webApp,
      await authorizeAndApprove(provider, flow.url),
      {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
      },
    );
    expect(await provider.stores.oauth.getOAuthConsent(provider.user.id, "web-app")).not.toBeNull();
    const liveGrant = (tokens.refresh_token as string).split(".")[0] as string;
    expect(await provider.stores.oauth.getOAuthGrant(liveGrant, provider.clock.now())).not.toBeNull();
    const deleted = await send(provider, admin, "DELETE", "/oauth2/clients/web-app");
    expect(deleted).toMatchObject({ status: 200, body: { success: true } });
    expect(await provider.stores.oauth.getOAuthClient("web-app")).toBeNull();
    expect(await provider.stores.oauth.getOAuthConsent(provider.user.id, "web-app")).toBeNull();
    const grantId = (tokens.refresh_token as string).split(".")[0] as string;
    expect(await provider.stores.oauth.getOAuthGrant(grantId, provider.clock.now())).toBeNull();
    expect(await refusal(client.refreshTokenGrant(webApp, tokens.refresh_token as string))).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
    });
    const grants = await fetch(`${provider.issuer}/oauth2/grants`, { headers: { cookie: provider.cookie } });
    expect(((await grants.json()) as { grants: { clientId: string }[] }).grants).toEqual([]);
    expect((await send(provider, admin, "DELETE", "/oauth2/clients/web-app")).status).toBe(404);
  });
});

describe("the OpenAPI document with the back office on", () => {
  it("lists the client routes, each with its own operation and a unique id, the path parameter declared", async () => {
    type Operation = { operationId: string; parameters?: unknown[] };
    const document = (await (await fetch(`${provider.issuer}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const clients = document.paths["/api/auth/oauth2/clients"];
    const one = document.paths["/api/auth/oauth2/clients/{clientId}"];
    const secret = document.paths["/api/auth/oauth2/clients/{clientId}/secret"];
    expect(Object.keys(clients ?? {}).sort()).toEqual(["get", "post"]);
    expect(Object.keys(one ?? {}).sort()).toEqual(["delete", "patch"]);
    expect(Object.keys(secret ?? {})).toEqual(["post"]);
    const ids = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(one?.patch?.parameters).toEqual([
      { name: "clientId", in: "path", required: true, schema: { type: "string" } },
    ]);
  });
});

describe("who may manage clients", () => {
  const ROUTES = [
    ["GET", "/oauth2/clients", undefined],
    ["POST", "/oauth2/clients", { name: "x", redirectUris: [], grantTypes: ["refresh_token"], scopes: [] }],
    ["PATCH", "/oauth2/clients/cli", { name: "Taken over" }],
    ["POST", "/oauth2/clients/machine/secret", undefined],
    ["DELETE", "/oauth2/clients/cli", undefined],
  ] as const;

  /** Each route's answer for `caller`: status and the core's error code. */
  const answers = async (target: TestProvider, caller: Caller | null) =>
    Promise.all(
      ROUTES.map(async ([method, path, body]) => {
        const { status, body: answer } = await send(target, caller, method, path, body);
        return [status, answer?.code];
      }),
    );

  it("a non-admin is 403 ADMIN_REQUIRED (step-up or not), an admin without step-up 401, an impersonation 403, nobody 401", async () => {
    const all = (status: number, code: string) => ROUTES.map(() => [status, code]);
    const eve = await signedIn(provider, "eve@example.test");
    expect(await answers(provider, eve)).toEqual(all(403, "ADMIN_REQUIRED"));
    expect(await answers(provider, { accessToken: eve.accessToken })).toEqual(all(403, "ADMIN_REQUIRED"));
    expect(await answers(provider, { accessToken: admin.accessToken })).toEqual(all(401, "STEP_UP_REQUIRED"));
    // Another user's step-up token is no step-up of the admin's session.
    const foreign = { accessToken: admin.accessToken, stepUpToken: eve.stepUpToken };
    expect(await answers(provider, foreign)).toEqual(all(401, "STEP_UP_REQUIRED"));

    const principal = await provider.auth.authenticate({ token: admin.accessToken });
    const call = { principal, stepUpToken: admin.stepUpToken };
    for (const userId of [eve.userId, admin.userId]) {
      const impersonation = await provider.auth.admin.impersonate(call, userId);
      const acting = { accessToken: impersonation.accessToken, stepUpToken: admin.stepUpToken };
      expect(await answers(provider, acting)).toEqual(all(403, "IMPERSONATION_NOT_ALLOWED"));
    }
    expect(await answers(provider, null)).toEqual(all(401, "AUTHENTICATION_REQUIRED"));
    // Nothing changed.
    expect(await provider.stores.oauth.getOAuthClient("cli")).toMatchObject({ name: "The CLI" });
    expect(await provider.stores.oauth.getOAuthClient("machine")).not.toBeNull();
  });

  it("without admin.authorize the routes are not mounted (404), as the core's admin routes", async () => {
    const plain = await startProvider();
    try {
      const caller = await signedIn(plain, ADMIN);
      expect(await answers(plain, caller)).toEqual(ROUTES.map(() => [404, "NOT_FOUND"]));
    } finally {
      await plain.close();
    }
  });
});
