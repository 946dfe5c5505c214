import {
  type AuthOptions,
  createArgon2Hasher,
  createAuth,
  createOutboxMailer,
  type HttpHandler,
  httpHandlerFor,
} from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock, serveHandlerForTests } from "@portcullis/testing";
import * as client from "openid-client";
import { DEVICE_CODE_GRANT } from "./clients.js";
import { createOAuthProvider, type OAuthProviderOptions } from "./provider.js";

export const SECRET = "oauth-provider-flow-test-secret-9d3f1a7c5e2b8046af";
export const PASSWORD = "correct horse battery staple 42";
export const CLIENT_SECRET = "the-web-app-client-secret-0123456789";

/** The clients every flow test has: a confidential web app, a public CLI, a machine client, a TV (device grant). */
export const TEST_CLIENTS: NonNullable<OAuthProviderOptions["clients"]> = [
  {
    clientId: "web-app",
    name: "The web app",
    clientSecret: CLIENT_SECRET,
    redirectUris: ["https://rp.example.test/callback"],
    scopes: ["openid", "profile", "email", "offline_access", "projects:read"],
  },
  {
    clientId: "cli",
    name: "The CLI",
    redirectUris: ["http://127.0.0.1:8765/callback"],
    grantTypes: ["authorization_code", "refresh_token"],
    scopes: ["openid", "email", "projects:read"],
  },
  {
    clientId: "machine",
    name: "A machine",
    clientSecret: "the-machine-client-secret-0123456789",
    redirectUris: [],
    grantTypes: ["client_credentials"],
    scopes: ["projects:read"],
  },
  {
    clientId: "tv",
    name: "The TV app",
    redirectUris: [],
    grantTypes: [DEVICE_CODE_GRANT, "refresh_token"],
    scopes: ["openid", "email", "projects:read"],
  },
];

/**
 * A provider on a server of its own at 127.0.0.1 (memory stores, cheap argon2, a clock that
 * starts now and that a test may move), with a signed-in user whose cookies `cookie` holds.
 * `authOptions` adds `createAuth`'s `admin`, `trustProxy` or `ipLimits`.
 */
export async function startProvider(
  options: Partial<OAuthProviderOptions> = {},
  authOptions: Partial<Pick<AuthOptions, "admin" | "trustProxy" | "ipLimits">> = {},
) {
  const stores = createMemoryStores();
  const clock = createFakeClock({ start: Date.now() });
  const outbox = createOutboxMailer();
  let handler: HttpHandler | undefined;
  const listening = await serveHandlerForTests(() => handler);
  const origin = listening.baseUrl;
  const auth = createAuth({
    secret: SECRET,
    appOrigin: origin,
    stores,
    clock,
    mailer: outbox,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    oauthProvider: createOAuthProvider({
      stores: { oauth: stores.oauth, signingKeys: stores.signingKeys },
      scopes: ["projects:read"],
      clients: TEST_CLIENTS,
      ...options,
    }),
    ...authOptions,
  });
  handler = httpHandlerFor(auth);
  const user = await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD, name: "Ada" });
  const session = await auth.sessions.create({}, { userId: user.id });
  const cookie = handler
    .sessionCookies(session)
    .map((line) => line.split(";")[0])
    .join("; ");
  const issuer = `${origin}/api/auth`;
  return { auth, stores, clock, outbox, origin, issuer, user, session, cookie, close: listening.close };
}

export type TestProvider = Awaited<ReturnType<typeof startProvider>>;

/** openid-client's configuration for one of `TEST_CLIENTS`, found by discovery (plain http on 127.0.0.1). */
export function relyingParty(provider: TestProvider, clientId: string, clientSecret?: string) {
  return client.discovery(
    new URL(provider.issuer),
    clientId,
    clientSecret,
    clientSecret === undefined ? client.None() : client.ClientSecretBasic(clientSecret),
    { execute: [client.allowInsecureRequests] },
  );
}

/** A GET of `url` as the signed-in browser (its cookies), not following redirects: where it sends the browser. */
export async function browse(provider: TestProvider, url: URL | string, signedIn = true): Promise<Response> {
  return fetch(url, { redirect: "manual", headers: signedIn ? { cookie: provider.cookie } : {} });
}

/** The user approves (or refuses) the consent request the authorization sent the browser to: `redirectTo`. */
export async function answerConsent(
  provider: TestProvider,
  consentPage: string,
  approve = true,
): Promise<string> {
  const consentId = new URL(consentPage).searchParams.get("consentId");
  const response = await fetch(`${provider.issuer}/oauth2/consent`, {
    method: "POST",
    headers: { cookie: provider.cookie, origin: provider.origin, "content-type": "application/json" },
    body: JSON.stringify({ consentId, approve }),
  });
  const body = (await response.json()) as { redirectTo?: string };
  if (!body.redirectTo) throw new Error(`consent answered ${response.status}: ${JSON.stringify(body)}`);
  return body.redirectTo;
}

/** A code flow's start: PKCE, state and nonce, and the authorization URL. */
export async function codeFlow(config: client.Configuration, parameters: Record<string, string>) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...parameters,
  });
  return { verifier, state, nonce, url };
}

/** The whole code flow as the signed-in user who approves: the callback URL the client gets. */
export async function authorizeAndApprove(provider: TestProvider, url: URL): Promise<URL> {
  const first = await browse(provider, url);
  let location = first.headers.get("location") ?? "";
  if (location.startsWith(`${provider.origin}/oauth/consent`))
    location = await answerConsent(provider, location);
  return new URL(location);
}
