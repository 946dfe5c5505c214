// The routes and checks whose round trips the test holds, each set up on one Auth: what runs
// before a measured request (`prepare`, not counted) and the request itself (`run`).
import { createHash, randomBytes } from "node:crypto";
import { type Auth, httpHandlerFor } from "@portcullis/core";
import { storeScimConnection } from "@portcullis/testing";
import { APP_ORIGIN, expectStatus, OAUTH_CLIENT, PASSWORD, RESOURCE, request } from "./app.js";
import type { TestStores } from "./stores.js";

/** One measured route or check. */
export interface MeasuredRoute {
  /** The key of its figures in round-trips.json. */
  id: string;
  /** Its row's name in docs/performance.md. */
  label: string;
  /** Run before each request, not counted (a fresh code, a fresh session). */
  prepare?: () => Promise<void>;
  run: () => Promise<void>;
}

/** The routes' ids and labels, in the table's order. */
export const ROUTE_LABELS: Record<string, string> = {
  me: "`GET /me` (bearer access token)",
  permission: "Host route: `requirePermission` with an active organization",
  apiKey: "Host route: authenticated with an API key",
  login: "`POST /login` (right password)",
  refresh: "`POST /refresh`",
  logout: "`POST /logout`",
  loginThrottled: "`POST /login` refused by the address's limit (429)",
  resetCooldown: "`POST /password/reset-request` in its cooldown (429)",
  verificationCooldown: "`POST /email/verification/send` in its cooldown (429)",
  oauthCode: "OAuth `POST /oauth2/token`: code exchange",
  oauthRefresh: "OAuth `POST /oauth2/token`: refresh grant",
  oauthVerify: "Resource server: verify an RFC 9068 access token",
  scimList: "SCIM `GET /scim/v2/Users?filter=userName eq …`",
};

const route = (id: string, run: () => Promise<void>, prepare?: () => Promise<void>): MeasuredRoute => ({
  id,
  label: ROUTE_LABELS[id] ?? id,
  run,
  ...(prepare ? { prepare } : {}),
});

/** Sets up users, an organization, a key, an OAuth grant and a SCIM connection on `auth`: its routes. */
export async function measuredRoutes(auth: Auth, stores: TestStores): Promise<MeasuredRoute[]> {
  await auth.ready();
  const handler = httpHandlerFor(auth);
  let users = 0;
  /** A new user with PASSWORD, address verified: its address and id. */
  const newUser = async () => {
    const email = `user${users++}@example.test`;
    const user = await auth.host.createUser({}, { email, password: PASSWORD });
    await auth.host.markEmailVerified({}, user.id);
    return { email, id: user.id };
  };
  const login = async (email: string, password = PASSWORD, status = 200) =>
    (await expectStatus(handler, request("POST", "/login", { body: { email, password } }), status)).body ??
    {};

  // A user of its own for each token-holding route: a refresh revokes its session's earlier
  // access tokens, which another route would then find refused.
  const signedIn = async () => login((await newUser()).email);
  const accessToken = String((await signedIn()).accessToken);
  let refreshToken = String((await signedIn()).refreshToken);

  // Right-password logins: a new user each, so no address comes near its limit.
  const loginUsers: string[] = [];
  const nextLoginUser = async () => void loginUsers.push((await newUser()).email);

  let loggingOut = "";
  const logoutUser = await newUser();

  const throttled = await newUser();
  const limit = auth.options.loginThrottle.freeAttempts;
  for (let attempt = 0; attempt < limit; attempt++) await login(throttled.email, "wrong password 123", 401);

  const resetAddress = (await newUser()).email;
  await expectStatus(
    handler,
    request("POST", "/password/reset-request", { body: { email: resetAddress } }),
    200,
  );
  // Created unverified: its first verification email starts the cooldown.
  const unverified = await auth.host.createUser({}, { email: "unverified@example.test", password: PASSWORD });
  const unverifiedToken = (await auth.sessions.create({}, { userId: unverified.id })).accessToken;
  await expectStatus(handler, request("POST", "/email/verification/send", { token: unverifiedToken }), 200);

  const member = await organizationMember(auth, String((await signedIn()).accessToken));
  const apiKey = await createApiKey(auth, String((await signedIn()).accessToken));
  const oauth = await oauthGrant(auth, String((await signedIn()).accessToken));
  const scim = await scimSetUp(auth, stores, member.organizationId);

  return [
    route(
      "me",
      async () => void (await expectStatus(handler, request("GET", "/me", { token: accessToken }), 200)),
    ),
    route("permission", async () => {
      const checked = await handler.authenticate(
        request("GET", "/api/projects", { token: member.token }),
        "project:read",
      );
      if (checked.response)
        throw new Error(`permission: ${checked.response.status} ${checked.response.body}`);
    }),
    route("apiKey", async () => {
      const checked = await handler.authenticate(
        request("GET", "/api/orders", { headers: { "x-api-key": apiKey } }),
      );
      if (checked.response) throw new Error(`API key: ${checked.response.status} ${checked.response.body}`);
    }),
    route("login", async () => void (await login(loginUsers.shift() ?? "")), nextLoginUser),
    route("refresh", async () => {
      const answer = await expectStatus(handler, request("POST", "/refresh", { token: refreshToken }), 200);
      refreshToken = String(answer.body?.refreshToken);
    }),
    route(
      "logout",
      async () => void (await expectStatus(handler, request("POST", "/logout", { token: loggingOut }), 200)),
      async () => {
        loggingOut = (await auth.sessions.create({}, { userId: logoutUser.id })).accessToken;
      },
    ),
    route("loginThrottled", async () => void (await login(throttled.email, PASSWORD, 429))),
    route("resetCooldown", async () => {
      const sent = request("POST", "/password/reset-request", { body: { email: resetAddress } });
      await expectStatus(handler, sent, 429);
    }),
    route("verificationCooldown", async () => {
      const sent = request("POST", "/email/verification/send", { token: unverifiedToken });
      await expectStatus(handler, sent, 429);
    }),
    route("oauthCode", oauth.exchange, oauth.nextCode),
    route("oauthRefresh", oauth.refresh),
    route("oauthVerify", oauth.verify),
    route("scimList", scim),
  ];
}

/** The user of `token` owns a new organization and makes it active: the new token naming it. */
async function organizationMember(auth: Auth, token: string) {
  const handler = httpHandlerFor(auth);
  const created = await expectStatus(
    handler,
    request("POST", "/organizations", { token, body: { name: "Acme", slug: "acme" } }),
    201,
  );
  const organizationId = String((created.body?.organization as { id?: string } | undefined)?.id);
  const activated = await expectStatus(
    handler,
    request("POST", `/organizations/${organizationId}/activate`, { token }),
    200,
  );
  return { organizationId, token: String(activated.body?.accessToken) };
}

/** An API key of the user of `token` (after a step-up with the password). */
async function createApiKey(auth: Auth, token: string): Promise<string> {
  const handler = httpHandlerFor(auth);
  const stepUp = await expectStatus(
    handler,
    request("POST", "/step-up", { token, body: { password: PASSWORD } }),
    200,
  );
  const created = await expectStatus(
    handler,
    request("POST", "/api-keys", {
      token,
      body: { name: "round trips" },
      headers: { "x-step-up-token": String(stepUp.body?.stepUpToken) },
    }),
    201,
  );
  return String(created.body?.key);
}

const FORM = "application/x-www-form-urlencoded";

/**
 * The user of `token` consents to the web app once; then codes by GET /oauth2/authorize (made
 * before each measured exchange), their exchange, the refresh grant's rotation, and the resource
 * server's check of the newest access token.
 */
async function oauthGrant(auth: Auth, token: string) {
  const handler = httpHandlerFor(auth);
  const verifier = randomBytes(32).toString("base64url");
  const authorizeUrl = `/oauth2/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: OAUTH_CLIENT.clientId,
    redirect_uri: OAUTH_CLIENT.redirectUris[0] ?? "",
    scope: "openid offline_access projects:read",
    state: "round-trips",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: RESOURCE,
  })}`;
  const authorize = async () => {
    const response = await handler.handle(request("GET", authorizeUrl, { token }));
    const location = response?.headers.location;
    if (!location) throw new Error(`authorize: ${response?.status} ${response?.body}`);
    return new URL(location, APP_ORIGIN);
  };
  const consentId = (await authorize()).searchParams.get("consentId");
  if (!consentId) throw new Error("the first authorization did not ask for consent");
  await expectStatus(
    handler,
    request("POST", "/oauth2/consent", { token, body: { consentId, approve: true } }),
    200,
  );
  const basic = `Basic ${Buffer.from(`${OAUTH_CLIENT.clientId}:${OAUTH_CLIENT.clientSecret}`).toString("base64")}`;
  const tokenRequest = async (form: Record<string, string>) => {
    const sent = request("POST", "/oauth2/token", {
      body: new URLSearchParams(form).toString(),
      contentType: FORM,
      headers: { authorization: basic },
    });
    return (await expectStatus(handler, sent, 200)).body ?? {};
  };
  let code = "";
  let refreshToken = "";
  let accessToken = "";
  const exchange = async () => {
    const answer = await tokenRequest({
      grant_type: "authorization_code",
      code,
      redirect_uri: OAUTH_CLIENT.redirectUris[0] ?? "",
      code_verifier: verifier,
    });
    refreshToken = String(answer.refresh_token);
    accessToken = String(answer.access_token);
  };
  const nextCode = async () => {
    code = (await authorize()).searchParams.get("code") ?? "";
  };
  await nextCode();
  await exchange();
  const provider = auth.oauthProvider;
  if (!provider) throw new Error("the OAuth provider is not set up");
  return {
    nextCode,
    exchange,
    refresh: async () => {
      const answer = await tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken });
      refreshToken = String(answer.refresh_token);
      accessToken = String(answer.access_token);
    },
    verify: async () =>
      void (await provider.verifyAccessToken(accessToken, { audience: RESOURCE, scopes: ["projects:read"] })),
  };
}

/** A SCIM connection of the organization, one user provisioned through it: the filtered list of that user. */
async function scimSetUp(auth: Auth, stores: TestStores, organizationId: string) {
  const handler = httpHandlerFor(auth);
  const { token } = await storeScimConnection({ auth, stores }, organizationId, ["acme.test"]);
  const scim = (method: string, path: string, body?: unknown) =>
    request(method, `/scim/v2${path}`, {
      token,
      headers: { accept: "application/scim+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body), contentType: "application/scim+json" }),
    });
  await expectStatus(
    handler,
    scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "ada@acme.test",
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ primary: true, value: "ada@acme.test", type: "work" }],
      active: true,
    }),
    201,
  );
  const filter = encodeURIComponent('userName eq "ada@acme.test"');
  return async () => {
    const { body } = await expectStatus(handler, scim("GET", `/Users?filter=${filter}`), 200);
    if (body?.totalResults !== 1) throw new Error(`SCIM list: ${JSON.stringify(body)}`);
  };
}
