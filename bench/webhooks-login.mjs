// Webhooks on the login path: POST /api/auth/login (the right password, the default argon2id
// parameters) on a server with the audit log and one webhook endpoint on, beside the same login
// on a server without them. Both servers are child processes (lib/webhooks-login-server.mjs: an
// Express app with `createAuthRouter`, 1,000 users whose hash is made once with the core's default
// hasher), started side by side on the same stores' backend; they differ only in `stores.auditLog`,
// `stores.webhooks` and the `webhooks` option. The webhook side's endpoint is the deployment's,
// made through `auth.webhooks.create` by an admin with a step-up token, for every event (`*`: a
// login sends `login.succeeded` and `session.created`), pointing at a receiver in this process
// (`startWebhookReceiver` from @portcullis/testing: it checks each message's signature and
// answers 200), with `allowPrivateNetworks: true`. The server's own engine delivers while the
// logins run, so its work competes with them.
//
// Rounds alternate the two sides (A B, then B A), 10 connections, one window each; the ratio
// (with / without) is measured in this one run, as the median of each side's windows and as the
// median of each round's pair of windows. Goal: at least 0.95. Before every window the bench
// waits until the receiver has every event the webhook side recorded (so a backlog never runs
// during the other side's window); it reads how far behind the receiver was at the end of each
// webhook window and how long it then took to catch up. Beside the rates: the server's CPU time
// per login (its `process.cpuUsage()`, argon2's threads included) over the window and, on the
// webhook side, until the receiver caught up; the store calls, their mean wall time and the wire
// round trips per login (every store method wrapped; each SQL statement the pg driver sends, each
// Redis command), the engine's until it caught up included. A third server, the audit log on and
// no webhooks (`stores.auditLog` only), is measured in the same rounds (WH_AUDIT_SIDE=0 leaves it
// out): its ratio to the plain side splits what the audit log costs from what the deliveries do.
// A fourth, the sends side (WH_SENDS_SIDE=0 leaves it out), is the plain side that POSTs each event
// itself, signed the same way, one at a time over a kept-alive connection, to a second receiver
// like the first: no audit log, no outbox, no engine. Its ratio is the floor that one HTTP
// exchange per event (what the Standard Webhooks scheme asks for) allows on this machine.
//
//   pnpm --filter portcullis-bench webhooks-login   (builds what it needs)
//   pnpm -r --filter "./packages/*" build && node bench/webhooks-login.mjs   (from the root)
//
// Env: WH_ROUNDS (default 5), WH_SECONDS (window, default 4), WH_STORES (default
// postgres,memory,redis), WH_ONLY (plain or webhooks: load only that side, for a profile; no
// ratio), WH_NODE_ARGS (extra arguments of the servers' Node, e.g. "--cpu-prof
// --cpu-prof-dir=bench/.tmp"), WH_RECEIVER_HOST (a name for the receiver's 127.0.0.1 in the
// endpoint's URL, e.g. localhost: then every send resolves it, as a named receiver's would),
// WH_GATHER_MS (the webhook side's `webhooks.gatherMs`; default the core's), BENCH_PG_URL (default the local server; a database per side,
// created through psql and dropped at the end), BENCH_REDIS_URL (users in memory, the rest in
// Redis under a key prefix per side, deleted at the end), BENCH_NODE (the servers' Node;
// otherwise Node 22 as `pnpm bench` picks it).
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { startWebhookReceiver } from "@portcullis/testing";
import { chooseServerNode } from "./lib/rows-node.mjs";
import { email, load, PASSWORD, startProcess } from "./lib/servers.mjs";
import { USERS } from "./lib/webhooks-login-server.mjs";

const PG_ADMIN = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const SERVER = fileURLToPath(new URL("./lib/webhooks-login-server.mjs", import.meta.url));

const ROUNDS = Number(process.env.WH_ROUNDS ?? 5);
const SECONDS = Number(process.env.WH_SECONDS ?? 4);
const STORES = (process.env.WH_STORES ?? "postgres,memory,redis").split(",");
/** `plain` or `webhooks`: load only that side (for a profile of it); no ratio then. */
const ONLY = process.env.WH_ONLY;
/** A host name for the receiver's 127.0.0.1 in the endpoint's URL (each send then resolves it). */
const RECEIVER_HOST = process.env.WH_RECEIVER_HOST;
/** Whether the audit-only side is measured too. */
const AUDIT_SIDE = process.env.WH_AUDIT_SIDE !== "0" && !ONLY;
/** Whether the sends side (each event POSTed by the server itself, no engine) is measured too. */
const SENDS_SIDE = process.env.WH_SENDS_SIDE !== "0" && !ONLY;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const figure = (values, f) => (values.length === 0 ? "—" : f(median(values)));
const psql = (text) =>
  spawnSync("psql", [PG_ADMIN, "-v", "ON_ERROR_STOP=1", "-c", text], { encoding: "utf8" });
const getJson = async (url, init) => (await fetch(url, init)).json();

/** Each login names the next of users 0..999, so no address has two checks in flight. */
let nextUser = 0;
const loginBody = () => {
  nextUser = (nextUser + 1) % USERS;
  return JSON.stringify({ email: email(nextUser), password: PASSWORD });
};
const loginScenario = {
  path: "/api/auth/login",
  method: "POST",
  headers: { "content-type": "application/json" },
  body: loginBody(),
  nextBody: loginBody,
  status: 200,
};

/** How many of `server`'s events (the webhook or the sends side's) `receiver` does not have yet. */
async function behind(server, receiver, offset) {
  const { events } = await getJson(`${server.url}/bench/counts`);
  return events - offset - receiver.counts().distinct;
}

/**
 * Waits (up to 60 s) until `receiver` has every event of `server` (the webhook side, or the
 * sends side), its requests in flight answered first; the ms it took. The server is asked once: the wait is on the receiver.
 */
async function caughtUp(server, receiver, offset) {
  const start = performance.now();
  const { events } = await getJson(`${server.url}/bench/drained`);
  while (receiver.counts().distinct < events - offset) {
    if (performance.now() - start > 60_000) throw new Error("the receiver fell behind for over 60 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - start;
}

/** Starts one side's server (and its database on PostgreSQL); `stop()` ends both. */
async function startSide(kind, side, node) {
  const env = { WH_SERVE: kind, WH_SIDE: side };
  let database;
  if (kind === "postgres") {
    database = `portcullis_webhooks_bench_${process.pid}_${side}`;
    if (psql(`CREATE DATABASE ${database}`).status !== 0) throw new Error(`psql at ${PG_ADMIN} failed`);
    const url = new URL(PG_ADMIN);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  const nodeArgs = (process.env.WH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  try {
    const server = await startProcess(SERVER, env, nodeArgs, node);
    return {
      ...server,
      stop: async () => {
        await server.stop();
        if (database) psql(`DROP DATABASE IF EXISTS ${database}`);
      },
    };
  } catch (error) {
    if (database) psql(`DROP DATABASE IF EXISTS ${database}`);
    throw error;
  }
}

/** The server's counts once its auth requests (autocannon leaves some in flight) and their background work are done. */
const drained = (server) => getJson(`${server.url}/bench/drained`);

/**
 * One measured window of `side` (after its warm-up, once the webhook and sends sides caught up):
 * requests/s; the server's CPU µs per login over the window (until the logins in flight at its end
 * were answered) and, on the webhook and sends sides, until their receiver had every event of it;
 * the messages received during the window, how many were still missing at its end and how long
 * they took after it; the store calls of all of it, with the logins the server answered meanwhile.
 */
async function measureWindow(servers, side, trackers, warmupS) {
  const server = servers[side];
  const sync = trackers[side];
  const waitAll = async () => {
    for (const tracker of Object.values(trackers)) await tracker.wait();
  };
  const cpuNow = async () => (await getJson(`${server.url}/bench/cpu`)).micros;
  const state = () => getJson(`${server.url}/bench/counts`);
  const figures = { lagAtEnd: null, catchUpMs: 0, received: 0, events: 0 };
  const result = await load(server.url, loginScenario, {
    durationS: SECONDS,
    warmupS,
    around: async (run) => {
      await drained(server);
      await waitAll();
      await fetch(`${server.url}/bench/counts/reset`, { method: "POST" });
      const before = {
        cpu: await cpuNow(),
        received: sync?.received() ?? 0,
        events: sync ? await sync.events() : 0,
      };
      const outcome = await run();
      if (sync) {
        figures.timesInWindow = (await state()).times;
        figures.lagAtEnd = await sync.behind();
        figures.received = sync.received() - before.received;
        figures.events = (await sync.events()) - before.events;
      }
      const { logins } = await drained(server);
      figures.cpu = ((await cpuNow()) - before.cpu) / logins;
      if (sync) {
        figures.catchUpMs = await sync.wait();
        figures.cpuAll = ((await cpuNow()) - before.cpu) / logins;
      }
      const { counts, times } = await state();
      Object.assign(figures, { counts, times, logins });
      return outcome;
    },
  });
  return { ...result, ...figures };
}

/** Store calls (by store) and wire round trips per login, summed over a side's windows. */
function perLogin(windows) {
  const logins = windows.reduce((sum, w) => sum + w.logins, 0);
  const totals = {};
  for (const w of windows)
    for (const [name, count] of Object.entries(w.counts)) totals[name] = (totals[name] ?? 0) + count;
  const sum = (filter) =>
    Object.entries(totals)
      .filter(([name]) => filter(name))
      .reduce((total, [, count]) => total + count, 0) / logins;
  const engine = (name) => name.startsWith("auditLog.") || name.startsWith("webhooks.");
  return {
    "login-path calls": sum((name) => name !== "wire" && !engine(name)).toFixed(2),
    "auditLog calls": sum((name) => name.startsWith("auditLog.")).toFixed(3),
    "webhooks calls": sum((name) => name.startsWith("webhooks.")).toFixed(3),
    "round trips": totals.wire === undefined ? "—" : (totals.wire / logins).toFixed(2),
    calls: Object.entries(totals)
      .filter(([name]) => name !== "wire")
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => `${name} ${(count / logins).toFixed(3)}`)
      .join(", "),
    latency: meanLatency(windows, "times"),
    "latency in the windows": windows[0]?.timesInWindow ? meanLatency(windows, "timesInWindow") : null,
  };
}

/** The mean wall ms of each store method (and of the engine's sends) over a side's windows. */
function meanLatency(windows, key) {
  const totals = {};
  for (const w of windows)
    for (const [name, { ms, n }] of Object.entries(w[key])) {
      const entry = totals[name] ?? { ms: 0, n: 0 };
      totals[name] = { ms: entry.ms + ms, n: entry.n + n };
    }
  return Object.entries(totals)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, { ms, n }]) => `${name} ${(ms / n).toFixed(2)}`)
    .join(", ");
}

/** How many requests `receiver` answered with anything but 200 (e.g. 401: a signature it did not verify). */
const refusedBy = (receiver) => receiver.attempts.filter((a) => a.status !== 200).length;

/** Waiting on, and counting, the messages `receiver` has of `server`'s events after `offset`. */
const trackerOf = (server, receiver, offset) => ({
  behind: () => behind(server, receiver, offset),
  wait: () => caughtUp(server, receiver, offset),
  received: () => receiver.counts().distinct,
  events: async () => (await getJson(`${server.url}/bench/counts`)).events,
});

async function measure(kind, node) {
  const receiver = await startWebhookReceiver();
  const sendsReceiver = SENDS_SIDE ? await startWebhookReceiver() : undefined;
  const servers = {};
  try {
    servers.plain = await startSide(kind, "plain", node);
    servers.webhooks = await startSide(kind, "webhooks", node);
    if (AUDIT_SIDE) servers.audit = await startSide(kind, "audit", node);
    if (SENDS_SIDE) servers.sends = await startSide(kind, "sends", node);
    const { secret } = await getJson(`${servers.webhooks.url}/bench/endpoint`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        url: RECEIVER_HOST ? receiver.url.replace("127.0.0.1", RECEIVER_HOST) : receiver.url,
      }),
    });
    receiver.secrets = [secret];
    // The events before the endpoint existed (the admin's sign-in and step-up) are not sent; the
    // endpoint's own `webhook.created` is. Wait for it, then count from here.
    while (receiver.counts().distinct === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const offset =
      (await getJson(`${servers.webhooks.url}/bench/counts`)).events - receiver.counts().distinct;
    const trackers = { webhooks: trackerOf(servers.webhooks, receiver, offset) };
    if (sendsReceiver) {
      const direct = await getJson(`${servers.sends.url}/bench/endpoint`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: sendsReceiver.url }),
      });
      sendsReceiver.secrets = [direct.secret];
      trackers.sends = trackerOf(servers.sends, sendsReceiver, direct.events);
    }
    const windows = { plain: [], webhooks: [], audit: [], sends: [] };
    const sides = ["plain", ...(AUDIT_SIDE ? ["audit"] : []), ...(SENDS_SIDE ? ["sends"] : []), "webhooks"];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order.filter((name) => !ONLY || name === ONLY))
        windows[side].push(await measureWindow(servers, side, trackers, round === 0 ? 2 : 0));
    }
    const of = (side, key) => windows[side].map((w) => w[key]);
    const rounded = (side, key) => figure(of(side, key), Math.round);
    const ratio = (a, b) => (ONLY ? "—" : (median(a) / median(b)).toFixed(3));
    // Each round's windows are next to each other in time: a side's ratio to the plain window of
    // its round, the median of the rounds.
    const ofRounds = (side) =>
      ONLY ? "—" : median(of(side, "rps").map((rps, round) => rps / windows.plain[round].rps)).toFixed(3);
    const hooks = windows.webhooks;
    const distinct = receiver.counts().distinct;
    return {
      row: {
        stores: kind,
        "without req/s": rounded("plain", "rps"),
        "with req/s": rounded("webhooks", "rps"),
        ratio: ratio(of("webhooks", "rps"), of("plain", "rps")),
        "ratio of rounds": ofRounds("webhooks"),
        "CPU µs/login without / with / with to caught-up": `${rounded("plain", "cpu")} / ${rounded("webhooks", "cpu")} / ${rounded("webhooks", "cpuAll")}`,
        "CPU ratio (window / to caught-up)": `${ratio(of("plain", "cpu"), of("webhooks", "cpu"))} / ${ratio(of("plain", "cpu"), of("webhooks", "cpuAll"))}`,
        "audit log only: ratio, of rounds, CPU ratio": AUDIT_SIDE
          ? `${ratio(of("audit", "rps"), of("plain", "rps"))}, ${ofRounds("audit")}, ${ratio(of("plain", "cpu"), of("audit", "cpu"))}`
          : "—",
        "sends only (the floor): ratio, of rounds, CPU ratio": SENDS_SIDE
          ? `${ratio(of("sends", "rps"), of("plain", "rps"))}, ${ofRounds("sends")}, ${ratio(of("plain", "cpu"), of("sends", "cpu"))}`
          : "—",
        "rounds without / with": `${of("plain", "rps").map(Math.round).join(" ")} / ${of("webhooks", "rps").map(Math.round).join(" ")}`,
      },
      delivery: {
        stores: kind,
        "events/s in window": figure(
          hooks.map((w) => w.events / SECONDS),
          Math.round,
        ),
        "received/s in window": figure(
          hooks.map((w) => w.received / SECONDS),
          Math.round,
        ),
        "behind at window end": hooks.map((w) => w.lagAtEnd).join(" "),
        "catch-up ms": hooks.map((w) => Math.round(w.catchUpMs)).join(" "),
        "received (repeats, refused)": `${distinct} (${receiver.received.length - distinct}, ${refusedBy(receiver)})`,
        "sends side: received/s, behind at window end": sendsReceiver
          ? `${figure(
              windows.sends.map((w) => w.received / SECONDS),
              Math.round,
            )}, ${windows.sends.map((w) => w.lagAtEnd).join(" ")}`
          : "—",
        "sends side refused": sendsReceiver ? refusedBy(sendsReceiver) : "—",
        "unexpected answers": Object.values(windows)
          .flat()
          .reduce((n, w) => n + w.unexpected + w.errors, 0),
      },
      counted: Object.entries(windows)
        .filter(([, list]) => list.length > 0)
        .map(([side, list]) => ({ stores: kind, side, ...perLogin(list) })),
    };
  } finally {
    for (const server of Object.values(servers)) await server.stop();
    await receiver.stop();
    await sendsReceiver?.stop();
  }
}

async function main() {
  const version = chooseServerNode();
  const node = process.env.BENCH_NODE || process.execPath;
  const load1 = () => loadavg()[0].toFixed(2);
  console.error(
    `[webhooks-login] servers on Node ${version}; ${ROUNDS} rounds of ${SECONDS} s; load average ${load1()}`,
  );
  const rows = [];
  const deliveries = [];
  const counted = [];
  for (const kind of STORES) {
    try {
      const result = await measure(kind, node);
      rows.push(result.row);
      deliveries.push(result.delivery);
      counted.push(...result.counted);
    } catch (error) {
      console.error(`[webhooks-login] ${kind} left out: ${error.stack ?? error.message}`);
    }
  }
  console.error(`[webhooks-login] load average at the end ${load1()}`);
  console.table(rows);
  console.table(deliveries);
  console.table(counted.map(({ calls, latency, "latency in the windows": _, ...rest }) => rest));
  for (const { stores, side, calls } of counted)
    console.log(`${stores} / ${side}, calls per login: ${calls}`);
  for (const { stores, side, latency, "latency in the windows": inWindows } of counted) {
    console.log(`${stores} / ${side}, mean ms per call, windows and catch-up: ${latency}`);
    if (inWindows) console.log(`${stores} / ${side}, mean ms per call, in the windows only: ${inWindows}`);
  }
}

await main();
