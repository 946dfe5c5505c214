// How `pnpm bench` measures a row: autocannon windows against a server, raw argon2id verifies in
// this process, and ROUNDS back-to-back pairs (the baseline, then ours) reduced to medians.
import { hash, verify } from "@node-rs/argon2";
import { cpuSplitAround, cpuSplitAvailable, withOwnCpu } from "./cpu-split.mjs";
import { email, load, PASSWORD, post } from "./servers.mjs";

const log = (...args) => console.error("[bench]", ...args);
export const ARGON2 = { memoryCost: 19456, timeCost: 2, parallelism: 1, algorithm: 2 };

/** Raw argon2id verifies per second: `connections` verifies in flight, like as many connections. */
export async function argon2Throughput(durationS, connections) {
  const hashed = await hash(PASSWORD, ARGON2);
  let done = 0;
  const end = performance.now() + durationS * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      if (!(await verify(hashed, PASSWORD))) throw new Error("argon2 verify failed");
      done += 1;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  return done / ((performance.now() - start) / 1000);
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * `rounds` pairs of windows (the baseline, then ours): the median of each and of the pairs'
 * ratios, so a burst of noise in one window moves one ratio of three, not the row.
 */
export async function compare(measureOurs, measureBase, rounds) {
  const ours = [];
  const base = [];
  for (let round = 0; round < rounds; round++) {
    base.push(await measureBase());
    ours.push(await measureOurs());
  }
  return { ours: median(ours), base: median(base), ratio: median(ours.map((value, i) => value / base[i])) };
}

/**
 * Each login names the next of users 3..999, so no address has two checks in flight (the
 * per-address throttle counts attempts before the hash is checked). One counter for every server.
 */
let nextUser = 3;
export const loginBody = () => {
  nextUser = nextUser >= 999 ? 3 : nextUser + 1;
  return JSON.stringify({ email: email(nextUser), password: PASSWORD });
};
export const loginScenario = {
  path: "/api/auth/login",
  method: "POST",
  headers: { "content-type": "application/json" },
  body: loginBody(),
  nextBody: loginBody,
  status: 200,
};

/** Signs user `index` in to Better Auth at `base`: its session cookie, as a Cookie header. */
export async function betterAuthSignIn(base, index) {
  const response = await fetch(`${base}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: email(index), password: PASSWORD }),
  });
  if (response.status !== 200)
    throw new Error(`better-auth sign-in: ${response.status} ${await response.text()}`);
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** Better Auth's equivalents of the scenarios: get-session, reset request, verification send, sign-in. */
export async function prepareBetterAuth(base) {
  const json = { "content-type": "application/json", origin: base };
  const signIn = (index) => betterAuthSignIn(base, index);
  const cookie = await signIn(0);
  const resetBody = { email: email(1), redirectTo: "/" };
  const check = await post(`${base}/api/auth/request-password-reset`, resetBody, { origin: base });
  if (check.status !== 200)
    throw new Error(`better-auth reset: ${check.status} ${JSON.stringify(check.body)}`);
  const request = (path, headers, body) => ({ path, method: "POST", headers, body, status: 200 });
  return {
    me: { path: "/api/auth/get-session", method: "GET", headers: { cookie }, status: 200 },
    reset: request("/api/auth/request-password-reset", json, JSON.stringify(resetBody)),
    verification: request(
      "/api/auth/send-verification-email",
      { ...json, cookie: await signIn(2) },
      JSON.stringify({ email: email(2) }),
    ),
    login: { ...request("/api/auth/sign-in/email", json, loginBody()), nextBody: loginBody },
  };
}

/**
 * A window's measure, recorded under `key` in `figures` (every window's figure, for the JSON
 * result); unexpected statuses and socket errors are logged, so a wrong row does not pass unseen.
 * With the server's `pid` (on Linux), the window's CPU per request of the server and of
 * PostgreSQL is recorded too, under `cpu <key>`.
 */
export const measurer = (timing, figures) => (key, url, scenario, pid) => async () => {
  const split = {};
  const around = pid !== undefined && cpuSplitAvailable ? cpuSplitAround(pid, split) : undefined;
  const result = await load(url, scenario, { ...timing, around });
  if (result.unexpected > 0 || result.errors > 0)
    log(`${key}: ${result.unexpected} unexpected statuses, ${result.errors} errors`);
  figures[key] = [...(figures[key] ?? []), result.rps];
  if (around) figures[`cpu ${key}`] = [...(figures[`cpu ${key}`] ?? []), split];
  log(`${key}: ${Math.round(result.rps)} req/s`);
  return result.rps;
};

/** The raw argon2id baseline, a window of its own right before each login window; its CPU per verify under `cpu raw argon2id`. */
export const rawMeasure = (timing, figures) => async () => {
  const { rate, cpuMs } = await withOwnCpu(() => argon2Throughput(timing.durationS, timing.connections));
  figures["raw argon2id verifies/s"] = [...(figures["raw argon2id verifies/s"] ?? []), rate];
  figures["cpu raw argon2id"] = [...(figures["cpu raw argon2id"] ?? []), cpuMs];
  log(`raw argon2id: ${Math.round(rate)} verifies/s, ${cpuMs.toFixed(1)} ms CPU each`);
  return rate;
};

/**
 * For each login row measured with its CPU split: a line saying where a login's CPU went (the
 * server's, argon2id included, and PostgreSQL's, medians of the windows) beside a raw verify's.
 */
export function cpuSplitLines(figures) {
  const raw = figures["cpu raw argon2id"];
  if (!raw) return [];
  const ms = (value) => `${value.toFixed(1)} ms`;
  const lines = [];
  for (const [key, splits] of Object.entries(figures)) {
    if (!key.startsWith("cpu login") || splits.length === 0) continue;
    const server = median(splits.map((s) => s.serverMs));
    const postgres = median(splits.map((s) => s.postgresMs));
    const main = median(splits.map((s) => s.mainThreadMs));
    const others = median(splits.map((s) => s.otherThreadsMs));
    lines.push(
      `CPU per ${key.slice(4)}: server ${ms(server)} (main thread ${ms(main)}, argon2id's and V8's threads ${ms(others)}), PostgreSQL ${ms(postgres)}, total ${ms(server + postgres)}; raw argon2id verify ${ms(median(raw))}`,
    );
  }
  return lines;
}
