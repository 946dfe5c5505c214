// The requests of bench/cpu-per-request.mjs, with the accounts, sessions and keys they need: on an
// example server (GET /me, refresh, an API-key request, the permission check, login, logout), on
// Better Auth (get-session, sign-in/email, sign-out) and on the bare baseline.
//
// Users of the seed file: 0 reads GET /me, 1 is the member behind the permission check, 7's
// address is in its reset cooldown, 8's verification send in its cooldown, 10..39 own the API
// keys, 40 and up sign in (logins, and the sessions refresh and logout use up).
// The OAuth and SCIM rows: lib/cpu-per-request-enterprise.mjs.
import { betterAuthSignIn } from "./rows-measure.mjs";
import { email, inParallel, PASSWORD, post } from "./servers.mjs";

const RESET_USER = 7;
const VERIFICATION_USER = 8;
const KEY_OWNERS = Array.from({ length: 30 }, (_, i) => 10 + i);
const FIRST_SIGN_IN_USER = 40;
// The examples' keys allow 600 requests a minute each (apiKeys' default) and 100 keys per owner.
// Each key is used for USES_PER_KEY requests in a row, then the next: 3,000 keys carry 1,200,000
// requests, more than the API-key rows' 3 rounds of 6 s take at 50,000 a second (a fast VM's
// Fastify), and a key is counted as a key used for a while is (its count leased in blocks that
// double, docs/api-keys.md). Keys taken in turn instead ran out of their minute on such a VM; at
// 590 requests a key, the blocks that concurrent requests leased on PostgreSQL reached the 600 of
// a few keys' minute first (27 and 53 answers 429 of about 30,000).
const KEYS_PER_OWNER = 100;
const USES_PER_KEY = 400;

/**
 * The next user to sign in, cycling over FIRST_SIGN_IN_USER..users-1: one address never has two sign-ins in
 * flight (the per-address throttle counts each before the hash is checked).
 */
const signInCycle = (users) => {
  let next = FIRST_SIGN_IN_USER;
  return () => {
    const index = next;
    next = next + 1 >= users ? FIRST_SIGN_IN_USER : next + 1;
    return index;
  };
};

export async function expect(response, status, what) {
  if (response.status !== status)
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

export const bearer = (token) => ({ authorization: `Bearer ${token}` });

/** A signed-in user's tokens (the example's login route). */
export const signIn = async (base, index) =>
  expect(await post(`${base}/api/auth/login`, { email: email(index), password: PASSWORD }), 200, "login");

/** Headers of user `index` signed in and stepped up (the bearer and `x-step-up-token`). */
export async function steppedUp(base, index) {
  const { accessToken } = await signIn(base, index);
  const stepUp = await expect(
    await post(`${base}/api/auth/step-up`, { password: PASSWORD }, bearer(accessToken)),
    200,
    "step-up",
  );
  return { ...bearer(accessToken), "x-step-up-token": stepUp.stepUpToken };
}

/** User 1, signed in, with an organization of its own active: its access token. */
async function activeMember(base) {
  const { accessToken } = await signIn(base, 1);
  const created = await post(
    `${base}/api/auth/organizations`,
    { name: "Bench", slug: `bench-cpu-${process.pid}` },
    bearer(accessToken),
  );
  const { organization } = await expect(created, 201, "create organization");
  const activated = await post(
    `${base}/api/auth/organizations/${organization.id}/activate`,
    undefined,
    bearer(accessToken),
  );
  return (await expect(activated, 200, "activate organization")).accessToken;
}

/** KEYS_PER_OWNER user keys of each key owner (a step-up per owner, as key creation asks). */
async function apiKeys(base) {
  const keys = [];
  for (const owner of KEY_OWNERS) {
    const headers = await steppedUp(base, owner);
    const created = await inParallel(KEYS_PER_OWNER, 4, async (i) => {
      const answer = await post(`${base}/api/auth/api-keys`, { name: `bench ${i}` }, headers);
      return (await expect(answer, 201, "create API key")).key;
    });
    keys.push(...created);
  }
  return keys;
}

/**
 * A credential per request: `setupRequest` puts the next of `queue` into `header` (`bearer`:
 * as a bearer token). An empty queue sends a token the server refuses, counted as not answered.
 */
const handOut =
  (queue, header, { asBearer = false, cookie = false } = {}) =>
  (request) => {
    const value = queue.shift() ?? "exhausted";
    const headerValue = asBearer ? `Bearer ${value}` : value;
    return { ...request, headers: { ...request.headers, [cookie ? "cookie" : header]: headerValue } };
  };

/**
 * The two 429s of the email cooldowns: user RESET_USER's address after one reset request, user
 * VERIFICATION_USER's verification send after one send (each answered 200 first, then refused
 * for the cooldown's hour, longer than any run).
 */
async function cooldownScenarios(base) {
  const reset = { email: email(RESET_USER) };
  const json = { "content-type": "application/json" };
  await expect(await post(`${base}/api/auth/password/reset-request`, reset), 200, "reset");
  const { accessToken } = await signIn(base, VERIFICATION_USER);
  const sent = await post(`${base}/api/auth/email/verification/send`, undefined, bearer(accessToken));
  await expect(sent, 200, "verification send");
  return {
    reset429: {
      method: "POST",
      path: "/api/auth/password/reset-request",
      headers: json,
      body: JSON.stringify(reset),
      status: 429,
    },
    verification429: {
      method: "POST",
      path: "/api/auth/email/verification/send",
      headers: bearer(accessToken),
      status: 429,
    },
  };
}

/**
 * The example server's eight scenarios (the two 429s: `cooldownScenarios`). Refresh rotates: each
 * answer's new refresh token goes back into a queue the next request takes from, topped up with fresh sessions before each run (a run's
 * end drops the answers in flight, and with them their sessions' newest tokens). Logout ends a
 * session per request: `logouts` sessions are signed in before each window, which sends exactly
 * that many requests.
 */
export async function exampleScenarios(base, { users, connections, logouts }) {
  const nextUser = signInCycle(users);
  const mint = (count) => inParallel(count, 4, () => signIn(base, nextUser()));
  const meToken = (await signIn(base, 0)).accessToken;
  const memberToken = await activeMember(base);
  const keys = await apiKeys(base);
  const cooldowns = await cooldownScenarios(base);
  let keyUses = 0;
  const refreshQueue = [];
  const logoutQueue = [];
  return {
    me: { method: "GET", path: "/api/auth/me", headers: bearer(meToken), status: 200 },
    refresh: {
      method: "POST",
      path: "/api/auth/refresh",
      headers: {},
      status: 200,
      // Twice the connections: a chain whose answer was refused or dropped leaves the others enough.
      prepare: async () => {
        const wanted = 2 * connections - refreshQueue.length;
        if (wanted > 0) refreshQueue.push(...(await mint(wanted)).map((t) => t.refreshToken));
      },
      setupRequest: handOut(refreshQueue, "authorization", { asBearer: true }),
      onResponse: (status, body) => {
        if (status === 200) refreshQueue.push(JSON.parse(body).refreshToken);
      },
    },
    apiKey: {
      method: "GET",
      path: "/api/hello",
      headers: { "x-api-key": keys[0] },
      status: 200,
      setupRequest: (request) => {
        const key = keys[Math.floor(keyUses++ / USES_PER_KEY) % keys.length];
        return { ...request, headers: { ...request.headers, "x-api-key": key } };
      },
    },
    permission: { method: "GET", path: "/api/projects", headers: bearer(memberToken), status: 200 },
    login: loginScenario("/api/auth/login", {}, nextUser),
    logout: {
      method: "POST",
      path: "/api/auth/logout",
      headers: {},
      status: 200,
      amount: logouts,
      prepare: async () => {
        if (logoutQueue.length < logouts)
          logoutQueue.push(...(await mint(logouts - logoutQueue.length)).map((t) => t.accessToken));
      },
      setupRequest: handOut(logoutQueue, "authorization", { asBearer: true }),
    },
    ...cooldowns,
  };
}

/** POST `path` with the next user's address and the password per request (a login route). */
function loginScenario(path, headers, nextUser) {
  const body = () => JSON.stringify({ email: email(nextUser()), password: PASSWORD });
  return {
    method: "POST",
    path,
    headers: { "content-type": "application/json", ...headers },
    body: body(),
    status: 200,
    setupRequest: (request) => ({ ...request, body: body() }),
  };
}

/**
 * Better Auth's equivalents: get-session (GET /me), sign-in/email (login), sign-out (logout), and
 * request-password-reset for the reset 429. Better Auth has no cooldown there: with its rate limiter
 * off, as in every row of this bench, each request is a reset request answered 200.
 */
export async function betterAuthScenarios(base, { users, logouts }) {
  const json = { "content-type": "application/json", origin: base };
  const resetBody = JSON.stringify({ email: email(RESET_USER), redirectTo: "/" });
  const nextUser = signInCycle(users);
  const signInCookie = (index) => betterAuthSignIn(base, index);
  const logoutQueue = [];
  return {
    me: {
      method: "GET",
      path: "/api/auth/get-session",
      headers: { cookie: await signInCookie(0) },
      status: 200,
    },
    login: loginScenario("/api/auth/sign-in/email", { origin: base }, nextUser),
    reset429: {
      method: "POST",
      path: "/api/auth/request-password-reset",
      headers: json,
      body: resetBody,
      status: 200,
    },
    logout: {
      method: "POST",
      path: "/api/auth/sign-out",
      headers: json,
      body: "{}",
      status: 200,
      amount: logouts,
      prepare: async () => {
        const wanted = logouts - logoutQueue.length;
        if (wanted > 0) logoutQueue.push(...(await inParallel(wanted, 4, () => signInCookie(nextUser()))));
      },
      setupRequest: handOut(logoutQueue, "cookie", { cookie: true }),
    },
  };
}

/** The header each host route's baseline reads: the one the route's credential comes in. */
const BARE_HEADERS = {
  me: "authorization",
  refresh: "authorization",
  apiKey: "x-api-key",
  permission: "authorization",
};
export const BARE_ROUTE_NAMES = Object.keys(BARE_HEADERS);

/**
 * The bare servers' routes (BARE_ROUTES of cpu-per-request-bare.mjs), each answering the JSON the
 * example answers on its route, read once from `base`; and the bare scenario of each route.
 */
export async function bareRoutes(base, scenarios) {
  const routes = [];
  const bare = {};
  for (const name of BARE_ROUTE_NAMES) {
    const scenario = scenarios[name];
    await scenario.prepare?.();
    const request = scenario.setupRequest
      ? scenario.setupRequest({ headers: { ...scenario.headers } })
      : scenario;
    const response = await fetch(`${base}${scenario.path}`, {
      method: scenario.method,
      headers: request.headers,
    });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`${name}: ${response.status} ${JSON.stringify(body)}`);
    if (name === "refresh") scenario.onResponse(200, JSON.stringify(body));
    const header = BARE_HEADERS[name];
    routes.push({ path: `/bare/${name}`, header, body });
    // The same header value as the example's request (a used one for refresh), so both servers
    // parse requests of the same size.
    bare[name] = {
      method: "GET",
      path: `/bare/${name}`,
      headers: { [header]: request.headers[header] },
      status: 200,
    };
  }
  return { routes, scenarios: bare };
}
