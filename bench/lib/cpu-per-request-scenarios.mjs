// The requests of bench/cpu-per-request.mjs, with the accounts, sessions and keys they need: on an
// example server (GET /me, refresh, an API-key request, the permission check, login, logout), on
// Better Auth (get-session, sign-in/email, sign-out) and on the bare baseline.
//
// Users of the seed file: 0 reads GET /me, 1 is the member behind the permission check, 2..6 own
// the API keys, 7's address is in its reset cooldown, 8's verification send in its cooldown, 10
// and up sign in (logins, and the sessions refresh and logout use up).
import { betterAuthSignIn } from "./rows-measure.mjs";
import { email, PASSWORD, post } from "./servers.mjs";

const FIRST_SIGN_IN_USER = 10;
const KEY_OWNERS = [2, 3, 4, 5, 6];
const RESET_USER = 7;
const VERIFICATION_USER = 8;
// The examples' keys allow 600 requests a minute each (apiKeys' default) and 100 keys per owner:
// 500 keys, handed out in turn, carry 5,000 requests a second over a whole minute, more than a
// window's load (a few seconds at most a few thousand a second) needs.
const KEYS_PER_OWNER = 100;

/**
 * The next user to sign in, cycling over 10..users-1: one address never has two sign-ins in
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

/** Calls `task` `count` times, `concurrency` at a time; answers the results in order. */
async function inParallel(count, concurrency, task) {
  const results = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

async function expect(response, status, what) {
  if (response.status !== status)
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

const bearer = (token) => ({ authorization: `Bearer ${token}` });

/** A signed-in user's tokens (the example's login route). */
const signIn = async (base, index) =>
  expect(await post(`${base}/api/auth/login`, { email: email(index), password: PASSWORD }), 200, "login");

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
    const { accessToken } = await signIn(base, owner);
    const stepUp = await expect(
      await post(`${base}/api/auth/step-up`, { password: PASSWORD }, bearer(accessToken)),
      200,
      "step-up",
    );
    const headers = { ...bearer(accessToken), "x-step-up-token": stepUp.stepUpToken };
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
  let keyTurn = 0;
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
        keyTurn = (keyTurn + 1) % keys.length;
        return { ...request, headers: { ...request.headers, "x-api-key": keys[keyTurn] } };
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
