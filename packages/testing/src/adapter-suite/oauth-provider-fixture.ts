// The OAuth provider's area: an auth with the caller's provider on the suite's own clients and the
// boot's stores, a signed-in user, and openid-client 6 as the relying party. The issuer is
// APP_ORIGIN + prefix while the host app listens on 127.0.0.1: the relying party keeps the
// issuer's URLs and its fetch sends each request to the host app instead.

import type { JsonWebKey } from "node:crypto";
import type {
  Auth,
  AuthOptions,
  Clock,
  OAuthProviderPlugin,
  OAuthStore,
  SigningKeyStore,
} from "@portcullis/core";
import * as client from "openid-client";
import { expect } from "vitest";
import {
  type AdapterSuiteOptions,
  APP_ORIGIN,
  type App,
  cookieHeader,
  createBoot,
  type SignedIn,
  type StartedServer,
} from "./fixture.js";

/** The auth routes' mount prefix in every adapter's host app. */
export const PREFIX = "/api/auth";
/** The provider's issuer: the app's origin and the mount prefix. */
export const ISSUER = `${APP_ORIGIN}${PREFIX}`;
/** The web app's one redirect URI. */
export const REDIRECT_URI = "https://rp.example.test/callback";
/** The token endpoint's body type. */
export const FORM_TYPE = "application/x-www-form-urlencoded";
/** The confidential web app of the code flow. */
export const WEB_APP = { id: "web-app", secret: "the-web-app-client-secret-0123456789" };
/** A confidential client of the client credentials grant. */
/**
 * What the adapters' test servers ask of a token at `GET /host/reports` (their `requireOAuth`):
 * issued for the machine client, with `projects:read`.
 */
export const REPORTS_CHECK = { audience: "machine", scopes: ["projects:read"] } as const;
export const MACHINE = { id: "machine", secret: "the-machine-client-secret-0123456789" };
/** Ada, the signed-in user. */
export const EMAIL = "ada@example.test";

/** A client the area tests with (it fits `createOAuthProvider`'s `clients`). */
export interface OAuthSuiteClient {
  clientId: string;
  name: string;
  clientSecret: string;
  redirectUris: string[];
  grantTypes?: string[];
  scopes: string[];
}

/** What the caller's `oauthProvider` builds the provider from (it fits `createOAuthProvider`'s options). */
export interface OAuthProviderSetup {
  /** The boot's own stores, on the suite's clock. */
  stores: { oauth: OAuthStore; signingKeys: SigningKeyStore };
  clients: OAuthSuiteClient[];
  scopes: string[];
}

/** The options of `runOAuthProviderAdapterSuite`. */
export interface OAuthProviderSuiteOptions extends Pick<AdapterSuiteOptions, "name" | "start"> {
  /** Fresh stores for each test, on `clock`, with the provider's `oauth` and `signingKeys`. */
  createStores(clock: Clock): ReturnType<AdapterSuiteOptions["createStores"]> & OAuthProviderSetup["stores"];
  /** The provider of `@portcullis/oauth-provider`, e.g. `(setup) => createOAuthProvider(setup)`. */
  oauthProvider(setup: OAuthProviderSetup): NonNullable<AuthOptions["oauthProvider"]>;
  /**
   * `start`, but with the framework's own form parser (e.g. `express.urlencoded()`) before the
   * auth routes; without it, the test of a parsed form body is skipped.
   */
  startBehindFormParser?(auth: Auth): Promise<StartedServer>;
}

const SUITE_CLIENTS: OAuthSuiteClient[] = [
  {
    clientId: WEB_APP.id,
    name: "The web app",
    clientSecret: WEB_APP.secret,
    redirectUris: [REDIRECT_URI],
    scopes: ["openid", "profile", "email", "offline_access", "projects:read"],
  },
  {
    clientId: MACHINE.id,
    name: "A machine",
    clientSecret: MACHINE.secret,
    redirectUris: [],
    grantTypes: ["client_credentials"],
    scopes: ["projects:read"],
  },
];

/** A request the relying party sent: its URL, headers and form. */
export interface SentRequest {
  url: string;
  headers: Headers;
  form: URLSearchParams;
}

/** openid-client's configuration for the web app, and the requests it has sent. */
export interface RelyingParty {
  config: client.Configuration;
  sent: SentRequest[];
}

/** The app with the provider, Ada signed in. */
export interface ProviderApp extends App {
  user: SignedIn["user"];
  /** Ada's cookies, as a `Cookie` header. */
  cookie: string;
  /** Ada's session access token (not an OAuth token). */
  accessToken: string;
  /** The web app as a relying party, from the served metadata, authenticating by `method`. */
  relyingParty(method: "basic" | "post"): Promise<RelyingParty>;
}

/**
 * The provider made when `createAuth` sets it up: by then the boot has made the stores it keeps
 * its state in.
 */
function providerOnStores(make: () => OAuthProviderPlugin): OAuthProviderPlugin {
  let made: OAuthProviderPlugin | undefined;
  return {
    setUp: (auth) => {
      made = make();
      return made.setUp(auth);
    },
    observe: (event) => made?.observe?.(event),
  };
}

/** Boots a `ProviderApp` for the running test (on `start`, or `startBehindFormParser`). */
export function bootProvider(options: OAuthProviderSuiteOptions, start = options.start) {
  return async (): Promise<ProviderApp> => {
    let stores: ReturnType<OAuthProviderSuiteOptions["createStores"]> | undefined;
    const boot = createBoot({
      ...options,
      start,
      createStores: (clock) => {
        stores = options.createStores(clock);
        return stores;
      },
    });
    const oauthProvider = providerOnStores(() => {
      if (!stores) throw new Error("the provider was set up before the stores were made");
      const { oauth, signingKeys } = stores;
      return options.oauthProvider({
        stores: { oauth, signingKeys },
        clients: SUITE_CLIENTS,
        scopes: ["projects:read"],
      });
    });
    const app = await boot({ oauthProvider });
    const { user, cookies, accessToken } = await app.signUp(EMAIL);
    return {
      ...app,
      user,
      accessToken,
      cookie: cookieHeader(cookies),
      relyingParty: (method) => relyingParty(app, method),
    };
  };
}

/**
 * The web app as openid-client sees it: the served metadata (issuer and endpoints on APP_ORIGIN),
 * its clock as far from the machine's as the suite's fake clock, and a fetch that sends to the
 * host app and keeps each request.
 */
async function relyingParty(app: App, method: "basic" | "post"): Promise<RelyingParty> {
  const discovery = await app.call("discovery", "GET", `${PREFIX}/.well-known/openid-configuration`);
  expect(discovery.status, discovery.text).toBe(200);
  const authentication =
    method === "basic" ? client.ClientSecretBasic(WEB_APP.secret) : client.ClientSecretPost(WEB_APP.secret);
  const config = new client.Configuration(
    discovery.body as unknown as client.ServerMetadata,
    WEB_APP.id,
    { [client.clockSkew]: Math.round((app.clock.now() - Date.now()) / 1000) },
    authentication,
  );
  const sent: SentRequest[] = [];
  config[client.customFetch] = (url, init) => {
    const headers = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
    const form = new URLSearchParams(
      init.body instanceof URLSearchParams ? init.body : String(init.body ?? ""),
    );
    sent.push({ url, headers, form });
    return fetch(toHost(app, url), init as RequestInit);
  };
  return { config, sent };
}

/** `url` on the issuer's origin, sent to the host app on 127.0.0.1 instead. */
export const toHost = (app: App, url: URL | string) => String(url).replace(APP_ORIGIN, app.server.baseUrl);

/** The last request the relying party sent to `endpoint` (e.g. `token`). */
export function lastSentTo(party: RelyingParty, endpoint: string): SentRequest {
  const request = party.sent.filter((each) => each.url === `${ISSUER}/oauth2/${endpoint}`).at(-1);
  if (!request) throw new Error(`nothing was sent to ${endpoint}`);
  return request;
}

/** A GET of `url` as Ada's browser (her cookies), not following the redirect. */
export const browse = (app: ProviderApp, url: URL | string) =>
  fetch(toHost(app, url), { redirect: "manual", headers: { cookie: app.cookie } });

/** A code flow's start: PKCE, state, nonce and the authorization URL to `redirectUri`. */
export async function startCodeFlow(party: RelyingParty, scope: string, redirectUri = REDIRECT_URI) {
  const verifier = client.randomPKCECodeVerifier();
  const checks = { pkceCodeVerifier: verifier, expectedState: client.randomState() };
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(party.config, {
    redirect_uri: redirectUri,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: checks.expectedState,
    nonce,
  });
  return { url, checks: { ...checks, expectedNonce: nonce } };
}

/**
 * Ada authorizes the web app for `scope`: the authorization sends her to the consent page, the
 * consent request shows the client, and her approval answers the callback URL with the code.
 */
export async function approvedCode(app: ProviderApp, party: RelyingParty, scope: string) {
  const { url, checks } = await startCodeFlow(party, scope);
  const authorization = await browse(app, url);
  expect(authorization.status, await authorization.text()).toBe(302);
  const consentPage = new URL(authorization.headers.get("location") ?? "");
  expect(consentPage.origin + consentPage.pathname).toBe(`${APP_ORIGIN}/oauth/consent`);
  const consentId = consentPage.searchParams.get("consentId") ?? "";
  const request = await app.api("GET", `/oauth2/consent?consentId=${encodeURIComponent(consentId)}`, {
    cookie: app.cookie,
  });
  expect(request.status, request.text).toBe(200);
  expect(request.body).toEqual({
    client: { clientId: WEB_APP.id, name: "The web app" },
    scopes: scope.split(" "),
    redirectOrigin: new URL(REDIRECT_URI).origin,
  });
  const answer = await app.api("POST", "/oauth2/consent", {
    body: { consentId, approve: true },
    cookie: app.cookie,
    headers: { origin: APP_ORIGIN },
  });
  expect(answer.status, answer.text).toBe(200);
  const callback = new URL(String(answer.body.redirectTo));
  expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
  expect(callback.searchParams.get("iss")).toBe(ISSUER);
  return { callback, checks };
}

/** Checks `jws`'s signature with the key of the served JWKS its header names (ES256 or EdDSA). */
export async function expectSignedByServedKey(app: App, jws: string): Promise<void> {
  const [header = "", payload = "", signature = ""] = jws.split(".");
  const { kid, alg } = JSON.parse(Buffer.from(header, "base64url").toString()) as {
    kid: string;
    alg: string;
  };
  const jwks = await app.api("GET", "/oauth2/jwks");
  const jwk = (jwks.body.keys as (JsonWebKey & { kid?: string })[]).find((key) => key.kid === kid);
  expect(jwk, `the JWKS has no key ${kid}`).toBeDefined();
  const es256 = alg === "ES256";
  const key = await crypto.subtle.importKey(
    "jwk",
    jwk as JsonWebKey,
    es256 ? { name: "ECDSA", namedCurve: "P-256" } : { name: "Ed25519" },
    false,
    ["verify"],
  );
  const verified = await crypto.subtle.verify(
    es256 ? { name: "ECDSA", hash: "SHA-256" } : { name: "Ed25519" },
    key,
    Buffer.from(signature, "base64url"),
    new TextEncoder().encode(`${header}.${payload}`),
  );
  expect(verified).toBe(true);
}

/** `Authorization: Basic` for a client (RFC 6749 §2.3.1: each part form-encoded). */
export const basicAuth = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

/** The client id and secret an `Authorization: Basic` header carries, decoded. */
export function basicCredentials(header: string | null): [id: string, secret: string] | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? "");
  if (!match) return null;
  const [id = "", secret = ""] = atob(match[1] ?? "").split(":");
  return [decodeURIComponent(id), decodeURIComponent(secret)];
}
