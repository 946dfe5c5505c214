// How bench/cpu-per-request.mjs measures one window: autocannon against a server, the CPU seconds
// the server process and its database process(es) used meanwhile (from /proc), divided by the
// answers with the scenario's status. CPU per answer, not requests per second: on a shared 2-core
// VM the rate moves with whatever else runs, the CPU one request takes much less.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import autocannon from "autocannon";
import { processCpuS, threadCpuS } from "./cpu-split.mjs";

/**
 * CPU seconds by pid of the PostgreSQL backends serving `database`. A backend retitles itself
 * "postgres: <cluster>: <user> <database> <client> <state>", so only this run's connections
 * count: other databases on the shared server, and its background writers (shared by all of
 * them; a commit's WAL flush is done by the committing backend itself), are left out.
 */
export function postgresBackendsCpu(database) {
  const cpu = new Map();
  const needle = ` ${database} `;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, "utf8").startsWith("postgres")) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) cpu.set(entry, processCpuS(entry));
    } catch {
      // The backend ended meanwhile.
    }
  }
  return cpu;
}

/**
 * The database CPU a window used: `read()` before and after, per pid. A backend that began
 * during the window counts from zero; one that ended is lost (a pool keeps its connections
 * open under load, so that is rare and small).
 */
const databaseMeter = (read) => {
  const before = read();
  return () => {
    let seconds = 0;
    for (const [pid, after] of read()) seconds += after - (before.get(pid) ?? 0);
    return seconds;
  };
};

/**
 * The database probe of a server: its PostgreSQL database's backends, or one redis-server
 * (`redis`: startRedis's answer), with the CPU per second it uses when idle (none for backends).
 */
export const databaseProbe = ({ database, redis }) => {
  if (database) return { read: () => postgresBackendsCpu(database), idleCpuPerS: 0 };
  if (redis)
    return {
      read: () => new Map([[String(redis.pid), processCpuS(redis.pid)]]),
      idleCpuPerS: redis.idleCpuPerS,
    };
  return undefined;
};

/**
 * One autocannon run: `durationS` seconds, or exactly `amount` requests. A scenario may hand out
 * a credential per request (`setupRequest`, e.g. the next refresh token) and read each answer
 * (`onResponse`). Answers the count of answers with the scenario's status and of the others.
 */
export function run(base, scenario, { connections, durationS, amount }) {
  let ok = 0;
  let other = 0;
  const perRequest = scenario.setupRequest || scenario.onResponse;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}${scenario.path}`,
        method: scenario.method,
        headers: scenario.headers,
        body: scenario.body,
        ...(perRequest
          ? { requests: [{ setupRequest: scenario.setupRequest, onResponse: scenario.onResponse }] }
          : {}),
        connections,
        ...(amount ? { amount } : { duration: durationS }),
      },
      (error, result) =>
        error ? reject(error) : resolve({ ok, other, errors: result.errors, seconds: result.duration }),
    );
    instance.on("response", (_client, statusCode) => {
      if (statusCode === scenario.status) ok += 1;
      else other += 1;
    });
  });
}

/**
 * A measured window (after a warm-up run unless `warmupS` is 0): server (and of it, its main
 * thread's and its other threads') and database CPU milliseconds per answer with the scenario's
 * status, and those answers per second.
 */
export async function measureWindow(base, scenario, { serverPid, probe, timing }) {
  await scenario.prepare?.();
  if (timing.warmupS > 0 && !scenario.amount)
    await run(base, scenario, { connections: timing.connections, durationS: timing.warmupS });
  await scenario.prepare?.();
  const serverBefore = processCpuS(serverPid);
  const threadsBefore = threadCpuS(serverPid);
  const database = probe ? databaseMeter(probe.read) : () => 0;
  const started = performance.now();
  const result = await run(base, scenario, {
    connections: timing.connections,
    durationS: timing.durationS,
    amount: scenario.amount,
  });
  const seconds = (performance.now() - started) / 1000;
  const perAnswerMs = (cpuS) => (result.ok > 0 ? (cpuS * 1000) / result.ok : Number.NaN);
  const threads = threadCpuS(serverPid);
  return {
    serverMs: perAnswerMs(processCpuS(serverPid) - serverBefore),
    // Of it: the main thread (JavaScript) and the others (libuv's pool, where argon2id runs; V8's helpers).
    mainThreadMs: perAnswerMs(threads.main - threadsBefore.main),
    otherThreadsMs: perAnswerMs(threads.others - threadsBefore.others),
    databaseMs: perAnswerMs(Math.max(0, database() - (probe?.idleCpuPerS ?? 0) * seconds)),
    ok: result.ok,
    other: result.other,
    errors: result.errors,
    rps: result.ok / seconds,
  };
}

/** A TCP port nothing listens on right now (for a redis-server of this run). */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const IDLE_SAMPLE_S = 5;

/**
 * A redis-server of this run on a free port, nothing saved to disk: its process CPU is then this
 * run's alone (the machine's shared Redis serves others too). Answers its URL, pid and `stop()`.
 */
export async function startRedis() {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise((resolve, reject) => {
    let log = "";
    child.stdout.on("data", (chunk) => {
      log += chunk;
      if (/Ready to accept connections/.test(log)) resolve();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${log.slice(-500)}`)));
  });
  // Its own background work (serverCron, `hz` 10 times a second) over an idle stretch, so a
  // window's Redis CPU can leave it out: at a login's few answers a second it would otherwise be
  // a visible part of the figure per answer.
  const idleStart = processCpuS(child.pid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SAMPLE_S * 1000));
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid,
    idleCpuPerS: (processCpuS(child.pid) - idleStart) / IDLE_SAMPLE_S,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The 1-, 5- and 15-minute load averages, as /proc/loadavg prints them. */
export const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
