// The OAuth client of the benches that load the example's OAuth provider (bench/oauth-provider.mjs,
// bench/cpu-per-request.mjs): one confidential web app in the clients file (OAUTH_CLIENTS_FILE),
// its authorization requests (PKCE S256, a resource on the app's origin) with a session's bearer
// token, the user's consent given once, and the token endpoint's requests.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inParallel, TMP } from "./servers.mjs";

/** The app origin the example is started with (APP_ORIGIN): the resource server's identifier is `<it>/api`. */
export const APP_ORIGIN = "http://localhost:3000";
export const RESOURCE = `${APP_ORIGIN}/api`;
const CLIENT = { id: "bench-app", secret: "bench-app-client-secret-0123456789abcdef" };
const REDIRECT_URI = "http://127.0.0.1:9/callback";
const SCOPE = "openid offline_access projects:read";
const VERIFIER = randomBytes(32).toString("base64url");
const CHALLENGE = createHash("sha256").update(VERIFIER).digest("base64url");
const BASIC = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString("base64")}`;
const FORM = "application/x-www-form-urlencoded";

/** The clients file (OAUTH_CLIENTS_FILE): one confidential web app. Answers its path. */
export function writeClientsFile() {
  mkdirSync(TMP, { recursive: true });
  const path = join(TMP, "oauth-clients.json");
  const client = {
    clientId: CLIENT.id,
    name: "Bench App",
    clientSecret: CLIENT.secret,
    redirectUris: [REDIRECT_URI],
    scopes: ["openid", "offline_access", "projects:read"],
  };
  writeFileSync(path, JSON.stringify([client]));
  return path;
}

/** The example's environment with the provider on (the clients file, the app origin). */
export const oauthEnv = () => ({
  OAUTH_PROVIDER: "true",
  OAUTH_CLIENTS_FILE: writeClientsFile(),
  APP_ORIGIN,
});

const authorizeUrl = (base) =>
  `${base}/api/auth/oauth2/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: CLIENT.id,
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    state: "bench",
    code_challenge: CHALLENGE,
    code_challenge_method: "S256",
    resource: RESOURCE,
  })}`;

/** The location of one authorization by the user of `bearer` (a 302 or 303). */
async function authorizeOnce(base, bearer) {
  const response = await fetch(authorizeUrl(base), { headers: bearer, redirect: "manual" });
  const location = response.headers.get("location");
  if (!location) throw new Error(`authorize: ${response.status} ${await response.text()}`);
  return new URL(location);
}

/** The user's consent to the client, given once through the consent request the first authorization makes. */
export async function consent(base, bearer) {
  const consentPage = await authorizeOnce(base, bearer);
  const consentId = consentPage.searchParams.get("consentId");
  if (!consentId) throw new Error(`authorize went to ${consentPage} instead of the consent page`);
  const answer = await fetch(`${base}/api/auth/oauth2/consent`, {
    method: "POST",
    headers: { ...bearer, "content-type": "application/json" },
    body: JSON.stringify({ consentId, approve: true }),
  });
  if (answer.status !== 200) throw new Error(`consent: ${answer.status} ${await answer.text()}`);
}

/** `count` fresh authorization codes of the user of `bearer` (`concurrency` authorizations at a time). */
export const codes = (base, bearer, count, concurrency) =>
  inParallel(count, concurrency, async () => {
    const location = await authorizeOnce(base, bearer);
    const code = location.searchParams.get("code");
    if (!code) throw new Error(`authorize answered no code: ${location}`);
    return code;
  });

/** The token endpoint's form for an authorization code exchange. */
export const codeForm = (code) =>
  new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: VERIFIER,
  }).toString();

/** The token endpoint's form for a refresh grant. */
export const refreshForm = (refreshToken) =>
  new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }).toString();

/** A token request (the client authenticated with client_secret_basic) with `body` as its form. */
export const tokenRequest = (body) => ({
  method: "POST",
  path: "/api/auth/oauth2/token",
  headers: { authorization: BASIC, "content-type": FORM },
  body,
});

/** A token endpoint's `request` ({ method, path, headers, body }) sent with fetch (a set-up's, not measured): its JSON answer. */
export async function sendTokenRequest(base, { path, ...init }) {
  const response = await fetch(`${base}${path}`, init);
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`token: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** One token request of the bench's client with `body` as its form: the JSON answer. */
export const token = (base, body) => sendTokenRequest(base, tokenRequest(body));
