// Run by late-rejections.test.ts as `node --expose-internals late-rejections-child.mjs`, on the
// built packages (`pnpm test` builds them first). Counts, per path of the core's HTTP handler, the
// rejections whose promise got its handler only after it was rejected: Node tracks each one (a
// WeakMap entry and a closure when it rejects, their removal when the handler comes), and on the
// verification 429 that tracking cost more than the rest of the answer (bench/README.md). Node's
// own callback for them is replaced by one that counts and remembers where each rejection was
// made; prints one JSON object: { paths: { <path>: { count, where[] } } }.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const { internalBinding } = require("internal/test/binding");

const REJECTED_WITHOUT_HANDLER = 0;
const HANDLER_ADDED_AFTER_REJECT = 1;
const rejectedAt = new WeakMap();
let late = [];
internalBinding("task_queue").setPromiseRejectCallback((type, promise, reason) => {
  if (type === REJECTED_WITHOUT_HANDLER) {
    const stack = (new Error().stack ?? "")
      .split("\n")
      .slice(2, 6)
      .map((line) => line.trim());
    rejectedAt.set(promise, `${reason?.code ?? reason?.name ?? String(reason)} ${stack.join(" < ")}`);
  } else if (type === HANDLER_ADDED_AFTER_REJECT && rejectedAt.has(promise)) {
    late.push(rejectedAt.get(promise));
    rejectedAt.delete(promise);
  }
});

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const load = (pkg) => import(pathToFileURL(join(ROOT, "packages", pkg, "dist/index.js")).href);
const core = await load("core");
const { createMemoryStores } = await load("store-memory");

const auth = core.createAuth({
  secret: "late-rejections-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0",
  stores: createMemoryStores({ sweepIntervalMs: 0 }),
  mailer: { send: async () => {} },
  logger: core.silentLogger,
  appOrigin: "http://localhost:3000",
  allowHeaderAuthentication: true,
  passwordHasher: core.createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  email: { loginAlerts: false, cooldownSeconds: 3600 },
  emailSignIn: { enabled: true },
  organizations: { permissions: ["project:read"], memberPermissions: ["project:read"] },
  apiKeys: {},
});
const handler = core.httpHandlerFor(auth);
const HEADERS = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0", host: "localhost:3000" };

function request(method, path, { body, token, headers, ip = "127.0.0.1" } = {}) {
  const all = { ...HEADERS, ...headers };
  if (token) all.authorization = `Bearer ${token}`;
  let text;
  if (body !== undefined) {
    text = JSON.stringify(body);
    all["content-type"] = "application/json";
  }
  const url = path.startsWith("/api/") ? path : `/api/auth${path}`;
  return { method, url, headers: all, body: text, remoteAddress: ip };
}

async function send(req, status) {
  const answer = await handler.handle(req);
  if (answer?.status !== status)
    throw new Error(`${req.method} ${req.url}: ${answer?.status} ${answer?.body}`);
  return answer.body ? JSON.parse(answer.body) : null;
}

const user = (i) => ({ email: `user${i}@example.test`, password: "correct horse battery staple" });
for (let i = 0; i < 3; i++) await send(request("POST", "/register", { body: user(i) }), 200);
const signIn = async (i) => send(request("POST", "/login", { body: user(i) }), 200);
const { accessToken } = await signIn(0);
const { organization } = await send(
  request("POST", "/organizations", { token: accessToken, body: { name: "Acme", slug: "acme" } }),
  201,
);
const member = await send(
  request("POST", `/organizations/${organization.id}/activate`, { token: accessToken }),
  200,
);
const { stepUpToken } = await send(
  request("POST", "/step-up", { token: accessToken, body: { password: user(0).password } }),
  200,
);
const { key } = await send(
  request("POST", "/api-keys", {
    token: accessToken,
    body: { name: "ci" },
    headers: { "x-step-up-token": stepUpToken },
  }),
  201,
);
const second = await signIn(1);
await send(request("POST", "/password/reset-request", { body: { email: user(0).email } }), 200);
await send(request("POST", "/email-sign-in/request", { body: { email: user(0).email } }), 200);
// Registration mailed the verification: its cooldown runs already.
let refreshToken = (await signIn(2)).refreshToken;
await auth.idle();

const hostCheck = (headers, permission) => async () => {
  const checked = await handler.authenticate(request("GET", "/api/projects", { headers }), permission);
  if (checked.response) throw new Error(`host check: ${checked.response.status} ${checked.response.body}`);
};

/** Each path: one request, checked; the count is over ROUNDS of them. */
const PATHS = {
  "GET /me": () => send(request("GET", "/me", { token: member.accessToken }), 200),
  "POST /refresh": async () => {
    ({ refreshToken } = await send(request("POST", "/refresh", { token: refreshToken }), 200));
  },
  "reset request in its cooldown (429)": () =>
    send(request("POST", "/password/reset-request", { body: { email: user(0).email } }), 429),
  "verification send in its cooldown (429)": () =>
    send(request("POST", "/email/verification/send", { token: second.accessToken }), 429),
  "email sign-in request in its cooldown (429)": () =>
    send(request("POST", "/email-sign-in/request", { body: { email: user(0).email } }), 429),
  "host check: access token": hostCheck({ authorization: `Bearer ${accessToken}` }),
  "host check: permission in the active organization": hostCheck(
    { authorization: `Bearer ${member.accessToken}` },
    "project:read",
  ),
  "host check: API key": hostCheck({ "x-api-key": key }),
  "POST /login": () => signIn(1),
  // From an address of its own, so that its failures count against nothing the others use.
  "sign-in of a throttled address (429)": async () => {
    const wrong = request("POST", "/login", {
      body: { ...user(2), password: "not the right password" },
      ip: "203.0.113.9",
    });
    const answer = await handler.handle(wrong);
    if (answer?.status !== 401 && answer?.status !== 429)
      throw new Error(`throttled sign-in: ${answer?.status}`);
  },
  // The check of the check: a rejection handled late on purpose must be counted.
  "control: a promise rejected before its handler": async () => {
    const rejected = Promise.reject(new Error("late on purpose"));
    await rejected.catch(() => undefined);
  },
};

const ROUNDS = 20;
const paths = {};
for (const [name, run] of Object.entries(PATHS)) {
  await run(); // first use (caches, compiled templates) uncounted
  await auth.idle();
  late = [];
  for (let i = 0; i < ROUNDS; i++) await run();
  await auth.idle();
  paths[name] = { count: late.length, where: [...new Set(late)].slice(0, 3) };
}
console.log(JSON.stringify({ rounds: ROUNDS, paths }));
