// The OAuth provider's hot paths (issue 46) beside GET /api/auth/me, on the Express example with
// OAUTH_PROVIDER on (the provider of @portcullis/oauth-provider, ES256 keys), measured in one run:
//
// - code: the token endpoint's authorization code exchange (client_secret_basic, PKCE S256, scopes
//   openid offline_access projects:read, resource <appOrigin>/api): the client's keyed-hash check,
//   the code's single-use redemption, an RFC 9068 access token, an ID token and a refresh token.
//   Each request redeems a code of its own, made before the window by GET /oauth2/authorize (the
//   user's consent already given): the window holds the exchanges alone.
// - refresh: the refresh grant with rotation, each request sending the newest refresh token of one
//   of REFRESH_GRANTS grants (a token is used once: a reuse would end its grant).
// - resource: GET /api/projects with an RFC 9068 access token from the code exchange (Express's
//   requireOAuth: the JWT verify against the provider's own key ring, audience and scope checked).
// - me: GET /api/auth/me with the user's session access token (the JWT verify and the user read).
//
// Rounds alternate the order of the four; each figure is requests/s over its window (requests
// answered / the window's seconds), and each ratio the median of the rounds' ratios to me, all in
// this one run. On memory stores and on PostgreSQL (a database of its own, created through psql at
// BENCH_PG_URL, default the local server, dropped at the end).
//
//   pnpm -r --filter "./packages/*" --filter "./examples/*" build && node bench/oauth-provider.mjs
//
// Env: OAUTH_ROUNDS (default 5), OAUTH_SECONDS (window of refresh, resource and me; default 4),
// OAUTH_CODES (codes redeemed per round; default 3000), OAUTH_STORES (memory,postgres),
// BENCH_PG_URL, BENCH_NODE (the server's Node), OAUTH_ONLY (one of me, code, refresh, resource:
// only that one is loaded, for a profile), OAUTH_NODE_ARGS (the server's extra Node arguments, e.g.
// "--cpu-prof --cpu-prof-dir=bench/.tmp").
import { spawnSync } from "node:child_process";
import autocannon from "autocannon";
import {
  codes as authorizationCodes,
  codeForm,
  consent,
  oauthEnv,
  refreshForm,
  token,
  tokenRequest,
} from "./lib/oauth-client.mjs";
import { login, startExample, writeSeedFile } from "./lib/servers.mjs";

const ROUNDS = Number(process.env.OAUTH_ROUNDS ?? 5);
const SECONDS = Number(process.env.OAUTH_SECONDS ?? 4);
const CODES = Number(process.env.OAUTH_CODES ?? 3000);
const STORES = (process.env.OAUTH_STORES ?? "memory,postgres").split(",");
const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const CONNECTIONS = 10;
const REFRESH_GRANTS = 2 * CONNECTIONS;

const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });

/** `count` fresh authorization codes (CONNECTIONS authorizations at a time). */
const codes = (base, bearer, count) => authorizationCodes(base, bearer, count, CONNECTIONS);

/**
 * autocannon with `requests` made by `next()` (null: none left); `onAnswer(status, body)` hears
 * each answer. `amount`: that many requests, else a window of SECONDS. Requests/s answered.
 */
function measure(base, { next, onAnswer, amount, path, headers }) {
  let unexpected = 0;
  const started = performance.now();
  let lastAnswer = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}${path ?? "/"}`,
        headers,
        connections: CONNECTIONS,
        ...(amount ? { amount } : { duration: SECONDS }),
        ...(next
          ? {
              requests: [
                {
                  setupRequest: (request) => ({ ...request, ...next() }),
                  onResponse: (status, body) => onAnswer?.(status, body),
                },
              ],
            }
          : {}),
      },
      (error, result) =>
        error
          ? reject(error)
          : resolve({
              // Timed here, to the last answer: a run of `amount` ends on autocannon's next whole second.
              rps: result.requests.total / ((lastAnswer - started) / 1000),
              unexpected: unexpected + result.errors,
            }),
    );
    instance.on("response", (_client, status) => {
      lastAnswer = performance.now();
      if (status !== 200) unexpected += 1;
    });
  });
}

/** The four scenarios against a started example. */
async function scenarios(base) {
  const sessionToken = await login(base, 0);
  const bearer = { authorization: `Bearer ${sessionToken}` };
  await consent(base, bearer);
  const first = await token(base, codeForm((await codes(base, bearer, 1))[0]));
  /** The refresh tokens of REFRESH_GRANTS new grants (a window's end drops the answers in flight, and with them their chains). */
  const freshRefreshTokens = async () => {
    const made = [];
    for (const code of await codes(base, bearer, REFRESH_GRANTS))
      made.push((await token(base, codeForm(code))).refresh_token);
    return made;
  };
  return {
    me: () => measure(base, { path: "/api/auth/me", headers: bearer }),
    resource: () =>
      measure(base, { path: "/api/projects", headers: { authorization: `Bearer ${first.access_token}` } }),
    code: async () => {
      const pending = await codes(base, bearer, CODES);
      return measure(base, { amount: CODES, next: () => tokenRequest(codeForm(pending.pop())) });
    },
    refresh: async () => {
      const refreshTokens = await freshRefreshTokens();
      return measure(base, {
        next: () => tokenRequest(refreshForm(refreshTokens.shift())),
        onAnswer: (status, body) => {
          if (status === 200) refreshTokens.push(JSON.parse(body).refresh_token);
        },
      });
    },
  };
}

const median = (values = []) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const NAMES = process.env.OAUTH_ONLY ? [process.env.OAUTH_ONLY] : ["me", "code", "refresh", "resource"];
const seedFile = writeSeedFile(5);
const rows = [];
for (const kind of STORES) {
  const env = oauthEnv();
  const database = kind === "postgres" ? `portcullis_oauth_bench_${process.pid}` : undefined;
  if (database) {
    if (psql(`CREATE DATABASE ${database}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const nodeArgs = (process.env.OAUTH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const server = await startExample("express", { seedFile, env, nodeArgs });
  try {
    const run = await scenarios(server.url);
    const rps = Object.fromEntries(NAMES.map((name) => [name, []]));
    const unexpected = Object.fromEntries(NAMES.map((name) => [name, 0]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? NAMES : [...NAMES].reverse();
      for (const name of order) {
        const result = await run[name]();
        rps[name].push(result.rps);
        unexpected[name] += result.unexpected;
      }
    }
    const ratio = (name) =>
      rps.me.length && rps[name].length
        ? median(rps[name].map((value, round) => value / rps.me[round])).toFixed(2)
        : "-";
    rows.push({
      stores: kind,
      "GET /me req/s": Math.round(median(rps.me) ?? 0),
      "code exchange req/s": Math.round(median(rps.code) ?? 0),
      "refresh req/s": Math.round(median(rps.refresh) ?? 0),
      "RFC 9068 resource req/s": Math.round(median(rps.resource) ?? 0),
      "code / me": ratio("code"),
      "refresh / me": ratio("refresh"),
      "resource / me": ratio("resource"),
      "not 200": NAMES.filter((name) => unexpected[name] > 0)
        .map((name) => `${name} ${unexpected[name]}`)
        .join(", "),
    });
  } finally {
    await server.stop();
    if (database) psql(`DROP DATABASE IF EXISTS ${database}`);
  }
}
console.table(rows);
