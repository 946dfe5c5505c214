// What each cache of the core earns on the path it serves, and this tree's core against another
// checkout's (e.g. main), measured in one process, paired: the core's HTTP handler driven in a loop
// on the bench's paths, turns of A and B alternating (A/B/A/B…) through each round, requests per
// CPU-second of each side, the median of the rounds. Memory stores, default argon2id parameters
// (the login path hashes for real).
//
//   node --expose-gc bench/cache-gain.mjs                  every cache: with it and without it
//   node --expose-gc bench/cache-gain.mjs --compare <dir>  this tree's core (and Fastify adapter,
//                                                          through inject) against the checkout in <dir>
//
// "Without" a cache is a copy of packages/core/dist/index.js with that cache cut out (the edits in
// CACHES, each of which must match exactly once), loaded beside the unchanged build as a second
// module instance. Env: CACHE_GAIN_ROUNDS (rounds, default 7), CACHE_GAIN_WINDOW_MS
// (default 600), CACHE_GAIN_ONLY (comma-separated cache names; with --compare: `core handler`,
// `fastify`, `express`).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CORE_DIST = join(ROOT, "packages/core/dist/index.js");
const ROUNDS = Number(process.env.CACHE_GAIN_ROUNDS ?? 7);
const WINDOW_MS = Number(process.env.CACHE_GAIN_WINDOW_MS ?? 600);
const SECRET = "cache-gain-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYtPlFY";
const PASSWORD = "correct horse battery staple";
const BROWSER = {
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "accept-language": "en-US,en;q=0.9,de;q=0.8",
  host: "localhost:3000",
};
const NO_MEMO = "\nfunction __cacheGainNoMemo(_maxEntries, compute) { return compute; }\n";

/**
 * Each cache: the paths it is on and the edits of the built core that remove it. The edits follow
 * the build of packages/core/src as it is now; when a cache changes, its edits change with it.
 */
const CACHES = [
  // An A/A check: the same code loaded twice, so its "gain" is the noise of the method on this machine.
  { name: "none (the unchanged build, loaded again)", key: "none", paths: ["me", "reset429"], edits: [] },
  {
    name: "verified access tokens (tokens/access-token.ts)",
    key: "verified-tokens",
    paths: ["me", "verification429"],
    edits: [["var VERIFIED_CACHE_MAX_ENTRIES = 1e4;", "var VERIFIED_CACHE_MAX_ENTRIES = 0;"]],
  },
  {
    name: "error bodies (http/respond.ts)",
    key: "error-bodies",
    paths: ["reset429", "verification429"],
    edits: [
      [
        "const parts = rememberedParts(error.code, context.locale, context.path, remaining);",
        "const parts = bodyParts(error.code, context.locale, context.path, remaining);",
      ],
    ],
  },
  {
    name: "error timestamp of the last millisecond (http/respond.ts)",
    key: "iso-timestamp",
    paths: ["reset429", "verification429"],
    edits: [["var isoTimestamp = boundedMemo(", "var isoTimestamp = __cacheGainNoMemo("]],
  },
  {
    name: "translated error messages (i18n/index.ts)",
    key: "messages",
    paths: ["reset429", "verification429", "invalid400"],
    edits: [
      [
        "    errorMessage(code, locale, values) {\n",
        `    errorMessage(code, locale, values) {\n      if (code) return instance.t("errors." + code, { lng: locale, ...values });\n`,
      ],
    ],
  },
  {
    // The error-body memo asks for a message only when it misses, so the message memo above it
    // shows its worth only with the error-body memo gone: this removes both.
    name: "error bodies and translated messages, both",
    key: "error-bodies+messages",
    paths: ["reset429", "verification429"],
    edits: [],
  },
  {
    name: "normalized and valid email addresses (validation.ts, boundedMemo)",
    key: "email",
    paths: ["reset429", "login"],
    edits: [
      ["var rememberedNormalize = boundedMemo(", "var rememberedNormalize = __cacheGainNoMemo("],
      ["var rememberedValid = boundedMemo(", "var rememberedValid = __cacheGainNoMemo("],
    ],
  },
  {
    name: "locale of an Accept-Language header (i18n/index.ts, boundedMemo)",
    key: "accept-language",
    paths: ["me", "reset429"],
    edits: [["const negotiateRemembered = boundedMemo(", "const negotiateRemembered = __cacheGainNoMemo("]],
  },
  {
    name: "normalized socket address (limits/client-ip.ts, boundedMemo)",
    key: "client-ip",
    paths: ["me", "reset429"],
    edits: [["var normalizeSocketAddress = boundedMemo(", "var normalizeSocketAddress = __cacheGainNoMemo("]],
  },
  {
    name: "a user's createdAt as ISO 8601 (model.ts, boundedMemo)",
    key: "iso-date",
    paths: ["me"],
    edits: [["var isoDate = boundedMemo(", "var isoDate = __cacheGainNoMemo("]],
  },
];

/** A copy of the built core without one cache, in dist/ so that its imports resolve as the original's. */
function coreWithout(cache) {
  let source = readFileSync(CORE_DIST, "utf8");
  const edits = cache.key.includes("+")
    ? cache.key.split("+").flatMap((key) => CACHES.find((other) => other.key === key).edits)
    : cache.edits;
  for (const [from, to] of edits) {
    const count = source.split(from).length - 1;
    if (count !== 1) throw new Error(`${cache.key}: "${from.slice(0, 60)}" matches ${count} times, not once`);
    source = source.replace(from, () => to);
  }
  const dir = join(dirname(CORE_DIST), "cache-gain");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `without-${cache.key}.js`);
  writeFileSync(file, source.replace(/\n\/\/# sourceMappingURL=.*$/, "") + NO_MEMO);
  return file;
}

const handlerOf = (core, auth) => (core.httpHandlerFor ?? core.createHttpHandler)(auth);
const email = (i) => `user${i}@example.test`;
const LOGIN_USERS = 6;

/** A request of a bench path: method, path under /api/auth, headers, JSON text. */
function request(method, path, { body, token } = {}) {
  const headers = { ...BROWSER };
  if (token) headers.authorization = `Bearer ${token}`;
  let text;
  if (body !== undefined) {
    text = JSON.stringify(body);
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(text));
  }
  return { method, url: `/api/auth${path}`, headers, text };
}

/** One request through the core's handler: its status and JSON body. */
async function viaCore(handler, { method, url, headers, text }) {
  const response = await handler.handle({ method, url, headers, body: text, remoteAddress: "127.0.0.1" });
  return { status: response.status, body: response.body };
}

/** One request through light-my-request (Fastify's `inject`, or any Node request listener). */
async function viaInject(inject, { method, url, headers, text }) {
  const response = await inject({ method, url, headers, payload: text, remoteAddress: "127.0.0.1" });
  return { status: response.statusCode, body: response.payload };
}

/**
 * An Auth on `core` with users 0 (GET /me), 1 (reset in cooldown), 2 (verification in cooldown)
 * and 3.. (logins), all registered with the default argon2id parameters.
 */
async function prepare(core, storeMemory) {
  const auth = core.createAuth({
    secret: SECRET,
    stores: storeMemory.createMemoryStores({ sweepIntervalMs: 0 }),
    mailer: { send: async () => {} },
    logger: core.silentLogger,
    appOrigin: "http://localhost:3000",
    // Cooldowns long enough for a whole run: the 429 paths must stay 429s.
    email: { loginAlerts: false, cooldownSeconds: 3600 },
    loginThrottle: { freeAttempts: 100 },
  });
  const handler = handlerOf(core, auth);
  const send = (req) => viaCore(handler, req);
  const tokens = [];
  for (let i = 0; i < 3 + LOGIN_USERS; i++) {
    const user = { email: email(i), password: PASSWORD };
    const registered = await send(request("POST", "/register", { body: user }));
    if (registered.status >= 300) throw new Error(`register: ${registered.body}`);
    tokens.push(JSON.parse((await send(request("POST", "/login", { body: user }))).body).accessToken);
  }
  await send(request("POST", "/password/reset-request", { body: { email: email(1) } }));
  await send(request("POST", "/email/verification/send", { token: tokens[2] }));
  return { auth, handler, tokens };
}

/** The bench paths through `send`, each checking its status. */
function paths(send, tokens) {
  const expecting = (status, make) => async () => {
    const answer = await send(make());
    if (answer.status !== status) throw new Error(`expected ${status}: ${answer.status} ${answer.body}`);
  };
  const me = request("GET", "/me", { token: tokens[0] });
  const reset = request("POST", "/password/reset-request", { body: { email: email(1) } });
  const verification = request("POST", "/email/verification/send", { token: tokens[2] });
  const invalid = request("POST", "/password/reset-request", { body: { email: "not an address" } });
  const logins = Array.from({ length: LOGIN_USERS }, (_, i) =>
    request("POST", "/login", { body: { email: email(3 + i), password: PASSWORD } }),
  );
  let next = 0;
  return {
    me: expecting(200, () => me),
    reset429: expecting(429, () => reset),
    verification429: expecting(429, () => verification),
    invalid400: expecting(400, () => invalid),
    login: expecting(200, () => logins[next++ % LOGIN_USERS]),
  };
}

/** CPU time of this process (all its threads: the hash's and WebCrypto's too), in µs, of one turn. */
async function turn(send, hashing) {
  const before = process.cpuUsage();
  // A login turn: as many in flight as libuv has threads for the hash; otherwise one at a time.
  if (hashing) await Promise.all([send(), send(), send(), send()]);
  else for (let i = 0; i < TURN; i++) await send();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

const TURN = 32;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * A against B: each round alternates turns of A and B (A, B, A, B, … a turn being 32 requests,
 * or 4 logins) for a window, and gives each side's requests per CPU-second over its turns; the
 * medians of the rounds, after a warm-up round. CPU time, not wall time, and turns a millisecond
 * or two long, because others share this machine: both sides meet the same neighbours.
 */
async function paired(sendA, sendB, path) {
  const hashing = path === "login";
  const ms = hashing ? Math.max(WINDOW_MS, 2500) : WINDOW_MS;
  const rounds = hashing ? Math.max(3, Math.ceil(ROUNDS / 2)) : ROUNDS;
  const round = async () => {
    globalThis.gc?.();
    let cpuA = 0;
    let cpuB = 0;
    let requests = 0;
    const end = performance.now() + ms;
    // Every other round B goes first, so neither side always follows the other.
    const bFirst = results.length % 2 === 1;
    while (performance.now() < end) {
      if (bFirst) cpuB += await turn(sendB, hashing);
      cpuA += await turn(sendA, hashing);
      if (!bFirst) cpuB += await turn(sendB, hashing);
      requests += hashing ? 4 : TURN;
    }
    return { a: (requests * 1e6) / cpuA, b: (requests * 1e6) / cpuB };
  };
  const results = [];
  await round();
  for (let i = 0; i < rounds; i++) results.push(await round());
  return { a: median(results.map((r) => r.a)), b: median(results.map((r) => r.b)) };
}

const format = (n) => Math.round(n).toLocaleString("en-US");
const percent = (ratio) => `${ratio >= 1 ? "+" : ""}${((ratio - 1) * 100).toFixed(1)} %`;
const load = (file) => import(pathToFileURL(file).href);

async function measureCaches() {
  const core = await load(CORE_DIST);
  const storeMemory = await load(join(ROOT, "packages/store-memory/dist/index.js"));
  const only = process.env.CACHE_GAIN_ONLY?.split(",");
  console.log(
    `${ROUNDS} rounds of ${WINDOW_MS} ms (login: 2.5 s, 4 in flight, half the rounds), Node ${process.version}\n`,
  );
  console.log("| cache | path | with (ops per CPU-s) | without (ops per CPU-s) | gain |");
  console.log("|---|---|---:|---:|---:|");
  for (const cache of CACHES) {
    if (only && !only.includes(cache.key)) continue;
    const without = await load(coreWithout(cache));
    const sides = [];
    for (const side of [core, without]) {
      const { handler, tokens } = await prepare(side, storeMemory);
      sides.push(paths((req) => viaCore(handler, req), tokens));
    }
    for (const path of cache.paths) {
      const { a, b } = await paired(sides[0][path], sides[1][path], path);
      console.log(`| ${cache.key} | ${path} | ${format(a)} | ${format(b)} | ${percent(a / b)} |`);
    }
  }
}

/**
 * This tree's core and adapters against those of the checkout in `other` (built), on the GET /me
 * and 429 paths: through the core's handler, Fastify's `inject` and Express under light-my-request.
 */
async function compareTrees(other) {
  const require = createRequire(join(ROOT, "bench/package.json"));
  const Fastify = require("fastify");
  const express = require("express");
  const inject = createRequire(require.resolve("fastify"))("light-my-request");
  console.log(`A: ${other}\nB: ${ROOT}\n${ROUNDS} rounds of ${WINDOW_MS} ms, Node ${process.version}\n`);
  console.log("| path | through | A (ops per CPU-s) | B (ops per CPU-s) | B / A |");
  console.log("|---|---|---:|---:|---:|");
  const sides = [];
  for (const tree of [other, ROOT]) {
    const core = await load(join(tree, "packages/core/dist/index.js"));
    const storeMemory = await load(join(tree, "packages/store-memory/dist/index.js"));
    const { auth, handler, tokens } = await prepare(core, storeMemory);
    const { portcullis } = await load(join(tree, "packages/adapter-fastify/dist/index.js"));
    const { createAuthRouter } = await load(join(tree, "packages/adapter-express/dist/index.js"));
    const fastify = Fastify();
    await fastify.register(portcullis, { auth });
    await fastify.ready();
    const app = express().use(createAuthRouter(auth));
    sides.push({
      "core handler": paths((req) => viaCore(handler, req), tokens),
      fastify: paths((req) => viaInject((options) => fastify.inject(options), req), tokens),
      express: paths((req) => viaInject((options) => inject(app, options), req), tokens),
    });
  }
  const only = process.env.CACHE_GAIN_ONLY?.split(",");
  for (const through of ["core handler", "fastify", "express"]) {
    if (only && !only.includes(through)) continue;
    for (const path of ["me", "reset429", "verification429"]) {
      const { a, b } = await paired(sides[0][through][path], sides[1][through][path], path);
      console.log(`| ${path} | ${through} | ${format(a)} | ${format(b)} | ${(b / a).toFixed(3)} |`);
    }
  }
}

const compare = process.argv.indexOf("--compare");
if (compare === -1) await measureCaches();
else await compareTrees(resolve(process.argv[compare + 1] ?? ""));
