// Helpers shared by the benchmark and the profiler: a seed file, the example servers as child
// processes, autocannon runs, and the requests that put an account into a cooldown.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(BENCH_DIR);
export const TMP = join(BENCH_DIR, ".tmp");
export const PASSWORD = "correct horse battery staple";
export const SECRET = "bench-secret-yAEoUyHUyQNxa_NIrlTvpITTjFXcXZF8WX0iqYtPlFY";
export const USERS = 1000;
export const email = (index) => `user${index}@example.test`;

/** A SEED_FILE with `count` unverified users sharing one password. */
export function writeSeedFile(count = USERS) {
  mkdirSync(TMP, { recursive: true });
  const path = join(TMP, `seed-${count}.json`);
  const users = Array.from({ length: count }, (_, i) => ({ email: email(i), password: PASSWORD }));
  writeFileSync(path, JSON.stringify(users));
  return path;
}

/**
 * Starts `node <entry>` with `env`, resolving with the base URL once the server prints it
 * (`http://host:port` on its first line) and a `stop()` that ends it with SIGINT. `node`: the
 * binary, by default BENCH_NODE (the Node the servers run on: run.mjs picks one the packages
 * support), else this one.
 */
export function startProcess(
  entry,
  env = {},
  nodeArgs = [],
  node = process.env.BENCH_NODE || process.execPath,
) {
  const child = spawn(node, [...nodeArgs, entry], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "development", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log += chunk;
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      log += chunk;
      const url = /http:\/\/[\d.]+:\d+/.exec(log)?.[0];
      if (url)
        resolve({
          url,
          child,
          stop: async () => {
            child.kill("SIGINT");
            await exited;
          },
        });
    });
    child.once("exit", (code) => reject(new Error(`${entry} exited with ${code}: ${log.slice(-2000)}`)));
  });
}

/** The built example server of `framework` in the checkout at `root`. */
export const exampleServerPath = (root, framework) => join(root, "examples", framework, "dist", "server.js");

/**
 * One of the example servers with memory stores (unless `env` names others), the seed file and
 * header tokens; `root`: the checkout whose built example runs (default this one).
 */
export const startExample = (framework, { seedFile, env = {}, nodeArgs = [], node, root = ROOT } = {}) =>
  startProcess(
    exampleServerPath(root, framework),
    {
      AUTH_SECRET: SECRET,
      SEED_FILE: seedFile,
      LOGIN_ALERTS: "false",
      ALLOW_HEADER_AUTH: "true",
      ...env,
    },
    nodeArgs,
    node,
  );

/** Calls `task` `count` times, `concurrency` at a time; answers the results in order. */
export async function inParallel(count, concurrency, task) {
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

export async function post(url, body, headers = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** An access token of user `index` (through the example's login route). */
export async function login(base, index) {
  const { status, body } = await post(`${base}/api/auth/login`, { email: email(index), password: PASSWORD });
  if (status !== 200 || !body.accessToken) throw new Error(`login failed: ${status} ${JSON.stringify(body)}`);
  return body.accessToken;
}

/**
 * The requests of each scenario, with the account states they need: user 0's token for GET /me,
 * user 1's address in its reset cooldown, user 2's verification send in its cooldown.
 */
export async function prepareScenarios(base) {
  const token = await login(base, 0);
  const reset = await post(`${base}/api/auth/password/reset-request`, { email: email(1) });
  if (reset.status !== 200) throw new Error(`reset-request: ${reset.status} ${JSON.stringify(reset.body)}`);
  const verifyToken = await login(base, 2);
  const send = await post(`${base}/api/auth/email/verification/send`, undefined, {
    authorization: `Bearer ${verifyToken}`,
  });
  if (send.status !== 200) throw new Error(`verification send: ${send.status} ${JSON.stringify(send.body)}`);
  return {
    me: { path: "/api/auth/me", method: "GET", headers: { authorization: `Bearer ${token}` }, status: 200 },
    reset: {
      path: "/api/auth/password/reset-request",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: email(1) }),
      status: 429,
    },
    verification: {
      path: "/api/auth/email/verification/send",
      method: "POST",
      headers: { authorization: `Bearer ${verifyToken}` },
      status: 429,
    },
  };
}

/** autocannon against `base` + the scenario's path; returns requests/s and the status check. */
export function load(base, scenario, { connections = 10, durationS = 10, warmupS = 2, around } = {}) {
  const run = (duration) =>
    new Promise((resolve, reject) => {
      const instance = autocannon(
        {
          url: `${base}${scenario.path}`,
          method: scenario.method,
          headers: scenario.headers,
          body: scenario.body,
          // A body per request (e.g. logins spread over many accounts), when the scenario has one.
          ...(scenario.nextBody
            ? { requests: [{ setupRequest: (request) => ({ ...request, body: scenario.nextBody() }) }] }
            : {}),
          connections,
          duration,
          expectBody: undefined,
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      instance.on("response", (_client, statusCode) => {
        if (statusCode !== scenario.status) unexpected += 1;
      });
    });
  let unexpected = 0;
  return (async () => {
    if (warmupS > 0) await run(warmupS);
    unexpected = 0;
    // `around`: wraps the measured window (not the warm-up), e.g. to account its CPU.
    const result = await (around ? around(() => run(durationS)) : run(durationS));
    return { rps: result.requests.average, total: result.requests.total, unexpected, errors: result.errors };
  })();
}
