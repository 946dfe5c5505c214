// The OAuth and SCIM rows of bench/cpu-per-request.mjs, on a second server of each host, so that
// the first one, and with it every other row, stays as it starts by default:
//
// - Portcullis (`enterpriseScenarios`): the example with the OAuth provider on and user 9,
//   verified, in ADMIN_EMAILS (`writeEnterpriseSeedFile`, `enterpriseEnv`), who sets SCIM up.
// - Better Auth (`betterAuthEnterpriseScenarios`): bench/servers/better-auth.mjs with
//   BETTER_AUTH_ENTERPRISE=1: its OAuth 2.1 provider and SCIM plugins, the client and the SCIM
//   token made at its start.
//
// Each side's code exchange, refresh grant, resource check and SCIM list, the requests as each
// side's documentation has a client send them.
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bearer, expect, signIn, steppedUp } from "./cpu-per-request-scenarios.mjs";
import {
  codeForm,
  codes,
  consent,
  oauthEnv,
  refreshForm,
  sendTokenRequest,
  tokenRequest,
} from "./oauth-client.mjs";
import { betterAuthSignIn } from "./rows-measure.mjs";
import { email, inParallel, PASSWORD, post, TMP } from "./servers.mjs";

/** Codes exchanged once before the first code exchange window (which has no timed warm-up). */
const WARM_UP_CODES = 200;

/** The enterprise server's admin: verified, in ADMIN_EMAILS; it makes the SCIM connection. */
const ADMIN_USER = 9;
const SCIM_DOMAIN = "bench-scim.test";
const SCIM_USER = `ada@${SCIM_DOMAIN}`;

/** The enterprise server's seed file: users 0..ADMIN_USER, the last one with a verified address. */
export function writeEnterpriseSeedFile() {
  mkdirSync(TMP, { recursive: true });
  const path = join(TMP, "seed-enterprise.json");
  const users = Array.from({ length: ADMIN_USER + 1 }, (_, i) => ({
    email: email(i),
    password: PASSWORD,
    ...(i === ADMIN_USER ? { emailVerified: true } : {}),
  }));
  writeFileSync(path, JSON.stringify(users));
  return path;
}

/** The enterprise server's environment: the OAuth provider on, user ADMIN_USER an admin. */
export const enterpriseEnv = () => ({ ...oauthEnv(), ADMIN_EMAILS: email(ADMIN_USER) });

/** A self-signed certificate for the SAML connection's form (openssl; nobody signs in through it). */
function selfSignedCertificate() {
  const args = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "/dev/null"];
  const made = spawnSync("openssl", [...args, "-subj", "/CN=bench-idp", "-days", "2"], { encoding: "utf8" });
  if (made.status !== 0)
    throw new Error(`openssl could not make a certificate: ${made.stderr ?? made.error}`);
  return made.stdout;
}

/**
 * The SCIM list: the admin makes an organization, verifies its domain through the back office,
 * adds a SAML connection for it (its SCIM token shown once) and provisions one user through SCIM
 * (`scimUser`); each request lists the connection's users with a filter on that user's name.
 */
async function scimScenario(base) {
  const admin = await steppedUp(base, ADMIN_USER);
  const created = await post(
    `${base}/api/auth/organizations`,
    { name: "Bench SCIM", slug: `bench-scim-${process.pid}` },
    admin,
  );
  const { organization } = await expect(created, 201, "create organization");
  const at = `${base}/api/auth/admin/organizations/${organization.id}/domains/${SCIM_DOMAIN}/verify`;
  await expect(await post(at, undefined, admin), 200, "verify the domain");
  const connection = await post(
    `${base}/api/auth/organizations/${organization.id}/sso/connections`,
    {
      type: "saml",
      entityId: "https://idp.bench.test/metadata",
      ssoUrl: "https://idp.bench.test/sso",
      certificate: selfSignedCertificate(),
      domains: [SCIM_DOMAIN],
    },
    admin,
  );
  const { scimToken } = await expect(connection, 201, "create SSO connection");
  const scimHeaders = bearer(scimToken);
  await expect(await post(`${base}/api/auth/scim/v2/Users`, scimUser(), scimHeaders), 201, "SCIM user");
  return scimList(scimHeaders);
}

/** The one user each side's directory provisions. */
const scimUser = () => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: SCIM_USER,
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ primary: true, value: SCIM_USER, type: "work" }],
  active: true,
});

/** The SCIM list with a filter on that user's name (one result), with the connection's token. */
const scimList = (headers) => ({
  method: "GET",
  path: `/api/auth/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${SCIM_USER}"`)}`,
  headers: { ...headers, accept: "application/scim+json" },
  status: 200,
});

/**
 * The three OAuth rows from one side's client: the code exchange (exactly `amount` requests a
 * window, each redeeming a code made by an authorization before it; WARM_UP_CODES exchanged once
 * before the first window, which has no timed warm-up), the refresh grant (each answer's refresh
 * token goes back into the queue, as the session refresh's do), and the resource server's route
 * with an RFC 9068 access token (a fresh one before each window). `newCodes(count)`: that many
 * codes; `codeRequest(code)`, `refreshRequest(token)`: the token endpoint's requests;
 * `resourcePath`: the route a client's token reaches.
 */
function oauthRows(
  base,
  { newCodes, codeRequest, refreshRequest, resourcePath },
  { connections, codes: amount },
) {
  const grants = async (count) => {
    const made = [];
    for (const code of await newCodes(count)) made.push(await sendTokenRequest(base, codeRequest(code)));
    return made;
  };
  const pending = [];
  let warm = false;
  const refreshQueue = [];
  const resource = {
    method: "GET",
    path: resourcePath,
    headers: {},
    status: 200,
    prepare: async () => {
      const [fresh] = await grants(1);
      resource.headers = bearer(fresh.access_token);
    },
  };
  return {
    oauthCode: {
      ...codeRequest("none yet"),
      status: 200,
      amount,
      prepare: async () => {
        if (!warm) await grants(WARM_UP_CODES);
        warm = true;
        if (pending.length < amount) pending.push(...(await newCodes(amount - pending.length)));
      },
      setupRequest: (request) => ({ ...request, body: codeRequest(pending.pop() ?? "exhausted").body }),
    },
    oauthRefresh: {
      ...refreshRequest("none yet"),
      status: 200,
      // Twice the connections: a chain whose answer was dropped at a window's end leaves the others enough.
      prepare: async () => {
        const wanted = 2 * connections - refreshQueue.length;
        if (wanted > 0) refreshQueue.push(...(await grants(wanted)).map((t) => t.refresh_token));
      },
      setupRequest: (request) => ({
        ...request,
        body: refreshRequest(refreshQueue.shift() ?? "exhausted").body,
      }),
      onResponse: (status, body) => {
        if (status === 200) refreshQueue.push(JSON.parse(body).refresh_token);
      },
    },
    oauthResource: resource,
  };
}

/**
 * The example's OAuth rows: user 0 has consented to the bench's client once; the resource route
 * is GET /api/projects, the example's `requireOAuth` (the JWT verify against the provider's key
 * ring, audience and scope checked).
 */
async function oauthScenarios(base, options) {
  const user = bearer((await signIn(base, 0)).accessToken);
  await consent(base, user);
  const client = {
    newCodes: (count) => codes(base, user, count, 4),
    codeRequest: (code) => tokenRequest(codeForm(code)),
    refreshRequest: (refreshToken) => tokenRequest(refreshForm(refreshToken)),
    resourcePath: "/api/projects",
  };
  return oauthRows(base, client, options);
}

/** The enterprise server's scenarios: the OAuth provider's three and the SCIM list. */
export async function enterpriseScenarios(base, options) {
  return { ...(await oauthScenarios(base, options)), scimList: await scimScenario(base) };
}

/**
 * Better Auth's OAuth rows and SCIM list, on bench/servers/better-auth.mjs (BETTER_AUTH_ENTERPRISE):
 * its client (confidential, consent skipped) and SCIM token from GET /bench/oauth-client. User 0's session
 * cookie authorizes (PKCE S256, `resource` the server's /api); the token requests authenticate
 * the client with client_secret_basic and name the resource, so every access token is a JWT for
 * it (Better Auth issues an opaque one otherwise); GET /api/projects verifies it with
 * `verifyBearerToken`. One user is provisioned through SCIM, and the list filters on its name.
 */
export async function betterAuthEnterpriseScenarios(base, options) {
  const info = await (await fetch(`${base}/bench/oauth-client`)).json();
  const cookie = await betterAuthSignIn(base, 0);
  const verifier = randomBytes(32).toString("base64url");
  const authorizeUrl = `${base}/api/auth/oauth2/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: info.clientId,
    redirect_uri: info.redirectUri,
    scope: "openid offline_access projects:read",
    state: "bench",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: info.resource,
  })}`;
  // A fetch is answered { redirect, url } with 200; a browser's navigation, a 302.
  const authorizeOnce = async () => {
    const answer = await fetch(authorizeUrl, { headers: { cookie }, redirect: "manual" });
    const location = answer.headers.get("location") ?? (await answer.json()).url;
    const code = new URL(location).searchParams.get("code");
    if (!code) throw new Error(`Better Auth's authorize answered no code: ${location}`);
    return code;
  };
  const newCodes = (count) => inParallel(count, 4, authorizeOnce);
  const basic = `Basic ${Buffer.from(`${info.clientId}:${info.clientSecret}`).toString("base64")}`;
  const form = (fields) => ({
    method: "POST",
    path: "/api/auth/oauth2/token",
    headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...fields, resource: info.resource }).toString(),
  });
  const client = {
    newCodes,
    codeRequest: (code) =>
      form({
        grant_type: "authorization_code",
        code,
        redirect_uri: info.redirectUri,
        code_verifier: verifier,
      }),
    refreshRequest: (refreshToken) => form({ grant_type: "refresh_token", refresh_token: refreshToken }),
    resourcePath: "/api/projects",
  };
  const scimHeaders = bearer(info.scimToken);
  await expect(await post(`${base}/api/auth/scim/v2/Users`, scimUser(), scimHeaders), 201, "SCIM user");
  return { ...oauthRows(base, client, options), scimList: scimList(scimHeaders) };
}
