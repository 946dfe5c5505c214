// The report of bench/cpu-per-request.mjs: rows reduced from the windows, the printed table, the
// JSON and Markdown under bench/results/, and (PERFORMANCE_WRITE=1) the table in
// docs/performance.md between its `cpu-per-request` markers, nothing else of that file touched.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { median } from "./rows-measure.mjs";
import { BENCH_DIR, ROOT } from "./servers.mjs";

export const GOAL = 1.5;
const ROUTE_LABELS = {
  me: "GET /me",
  refresh: "refresh",
  apiKey: "API-key request",
  permission: "permission check",
  login: "login",
  logout: "logout",
  reset429: "reset request in its cooldown (429)",
  verification429: "verification send in its cooldown (429)",
  oauthCode: "OAuth code exchange",
  oauthRefresh: "OAuth refresh grant",
  oauthResource: "RFC 9068 access token verified (resource server)",
  scimList: "SCIM list with a filter",
};
const BETTER_AUTH_LABELS = {
  me: "get-session",
  login: "sign-in/email",
  logout: "sign-out",
  reset429: "request-password-reset (200: no cooldown)",
  oauthCode: "OAuth code exchange",
  oauthRefresh: "OAuth refresh grant",
  oauthResource: "RFC 9068 access token verified (`verifyBearerToken`)",
  scimList: "SCIM list with a filter",
};
/** The routes issue 51 holds to GOAL × the bare framework, on memory and on Redis. */
const GOAL_ROUTES = new Set(["me", "refresh", "apiKey", "permission"]);
const GOAL_STORES = new Set(["memory", "redis"]);

/**
 * One row from its windows: the medians of the server's and the database's CPU per answer, of the
 * bare baseline's, and of the rounds' ratios (each round's pair measured back to back).
 */
export function reduceRow(host, route, windows, bareWindows, rawWindows = [], floorWindows = []) {
  const of = (list, key) => (list.length > 0 ? median(list.map((w) => w[key])) : undefined);
  const ratios = bareWindows.map((bare, i) => windows[i].serverMs / bare.serverMs);
  // The bare route with one Redis read, per round: beside the bare route, and ours beside it.
  const floorRatios = floorWindows.map((floor, i) => floor.serverMs / bareWindows[i].serverMs);
  const oursToFloor = floorWindows.map((floor, i) => windows[i].serverMs / floor.serverMs);
  // A login's work beyond the hash, per round: server and database CPU less the round's raw verify.
  const beyond = rawWindows.map((raw, i) => windows[i].serverMs + (windows[i].databaseMs || 0) - raw.cpuMs);
  const betterAuth = host.kind === "better-auth";
  return {
    host: host.label,
    store: host.store,
    route,
    label: betterAuth ? `${BETTER_AUTH_LABELS[route]} (Better Auth)` : ROUTE_LABELS[route],
    serverMs: of(windows, "serverMs"),
    mainThreadMs: of(windows, "mainThreadMs"),
    otherThreadsMs: of(windows, "otherThreadsMs"),
    rawVerifyMs: of(rawWindows, "cpuMs"),
    beyondHashMs: beyond.length > 0 ? median(beyond) : undefined,
    databaseMs: host.store === "memory" ? undefined : of(windows, "databaseMs"),
    bareMs: of(bareWindows, "serverMs"),
    ratio: ratios.length > 0 ? median(ratios) : undefined,
    floorMs: of(floorWindows, "serverMs"),
    floorDatabaseMs: of(floorWindows, "databaseMs"),
    floorRatio: floorRatios.length > 0 ? median(floorRatios) : undefined,
    oursToFloor: oursToFloor.length > 0 ? median(oursToFloor) : undefined,
    goal: !betterAuth && GOAL_ROUTES.has(route) && GOAL_STORES.has(host.store) ? GOAL : undefined,
    rps: of(windows, "rps"),
    answered: windows.reduce((sum, w) => sum + w.ok, 0),
    refused: windows.reduce((sum, w) => sum + w.other + w.errors, 0),
    windows,
    bareWindows,
    rawWindows,
    floorWindows,
  };
}

/** The Redis rows' floor: the bare route that also reads one Redis key, beside the bare route and ours. */
export function floorLines(rows) {
  const floors = rows.filter((row) => row.floorMs !== undefined);
  if (floors.length === 0) return [];
  const lines = [
    "",
    "### On Redis: the bare route with one Redis read",
    "",
    ...wrap(
      "A revocable access token costs one store round trip per request (`authenticate`: one JWT verify and one read). The same bare route that also reads one key of the same Redis through ioredis (a value of 200 bytes, the commands of one turn pipelined into one write) shows what that one read costs the server alone, measured in the same rounds: the lowest a route with the round trip can go on this machine. Redis CPU per answer beside it.",
    ),
    "",
    "| server, stores | route | bare framework | bare with one Redis read | its Redis CPU | that / bare | ours | ours / that |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of floors)
    lines.push(
      `| ${[row.host, row.label, ms(row.bareMs), ms(row.floorMs), ms(row.floorDatabaseMs), row.floorRatio.toFixed(2), ms(row.serverMs), row.oursToFloor.toFixed(2)].join(" | ")} |`,
    );
  return lines;
}

/** Issue 51: a PostgreSQL login's work beyond the hash at most this share of Better Auth's. */
export const LOGIN_GOAL = 0.5;

/** The login rows' split (where the hash was measured beside them) and ours / Better Auth's on PostgreSQL. */
export function loginLines(rows) {
  const logins = rows.filter((row) => row.route === "login" && row.beyondHashMs !== undefined);
  if (logins.length === 0) return [];
  const lines = [
    "",
    "### A login's work beyond the hash",
    "",
    ...wrap(
      "Each login window's CPU split into the server's main thread (JavaScript: HTTP, the use case, the driver), its other threads (libuv's pool, where argon2id runs, and V8's helpers) and the database; beside it, a raw argon2id verify with the same parameters, measured in the bench's own process in the same round. Beyond the hash is server plus database less the raw verify, the median of the rounds.",
    ),
    "",
    "| server, stores | main thread | other threads | database | raw verify | beyond the hash |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const row of logins)
    lines.push(
      `| ${[row.host, ms(row.mainThreadMs), ms(row.otherThreadsMs), ms(row.databaseMs), ms(row.rawVerifyMs), ms(row.beyondHashMs)].join(" | ")} |`,
    );
  const ours = logins.find((row) => row.store === "postgres" && !row.label.includes("Better Auth"));
  const theirs = logins.find((row) => row.store === "postgres" && row.label.includes("Better Auth"));
  if (ours && theirs) {
    const ratio = ours.beyondHashMs / theirs.beyondHashMs;
    lines.push(
      "",
      ...wrap(
        `On PostgreSQL, ours / Better Auth's beyond the hash: ${ratio.toFixed(2)} (at most ${LOGIN_GOAL}: ${ratio <= LOGIN_GOAL ? "met" : "not met"}). This is the example server's sign-in, which does more than a bare createSqlStores host (the organizations, the audit log, the SSO check), and the subtraction counts as beyond the hash whatever the hash's threads cost under load beyond the raw verify measured alone (the difference of those two columns). The next section measures the work beyond the hash directly, with a stand-in hash on both sides.`,
      ),
    );
  }
  return lines;
}

const ms = (value) => (value === undefined || Number.isNaN(value) ? "–" : `${value.toFixed(3)} ms`);
// Two decimals, or three where two would round a ratio just over the goal down onto it.
const ratioText = (row) => {
  if (row.ratio === undefined) return "–";
  const text = row.ratio.toFixed(2);
  return row.goal !== undefined && Number(text) === row.goal && row.ratio > row.goal
    ? row.ratio.toFixed(3)
    : text;
};
const metText = (row) => {
  if (row.goal === undefined) return "";
  return row.ratio <= row.goal ? "yes" : "no";
};

/** The rows as console.table prints them. */
export const printable = (rows) =>
  rows.map((row) => ({
    server: row.host,
    route: row.label,
    "server CPU/answer": ms(row.serverMs),
    "database CPU/answer": ms(row.databaseMs),
    "bare CPU/answer": ms(row.bareMs),
    "ours/bare": ratioText(row),
    [`met (≤ ${GOAL})`]: metText(row),
    "bare + 1 Redis read": ms(row.floorMs),
    "that/bare": row.floorRatio === undefined ? "–" : row.floorRatio.toFixed(2),
    "ours/that": row.oursToFloor === undefined ? "–" : row.oursToFloor.toFixed(2),
    "answers/s": Math.round(row.rps ?? 0),
    "other status": row.refused,
  }));

/** `text` in lines of at most 100 characters (the docs' width), broken between words, never inside a code span. */
const wrap = (text) => {
  const lines = [];
  let line = "";
  const kept = text.replace(/`[^`]*`/g, (span) => span.replaceAll(" ", "\u0000"));
  for (const word of kept.split(" ").map((w) => w.replaceAll("\u0000", " "))) {
    if (line && line.length + word.length + 1 > 100) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
};

/** The Markdown table of a run, with the lines saying how and where it was measured. */
export function markdown(run) {
  const lines = [
    "### Beside the bare framework (issue 51)",
    "",
    ...wrap(
      "What one answered request costs in CPU: the server process's, and its database's own (redis-server's, or the backends' of the run's PostgreSQL database), beside the same framework's route that only reads the credential's header and answers the same JSON, and Better Auth's equivalent routes on the same database in the same run. Written by `PERFORMANCE_WRITE=1 pnpm --filter portcullis-bench cpu-per-request` (`bench/cpu-per-request.mjs`; the method in bench/README.md). On a shared VM the absolute figures move with the machine's load; each ratio is the median of its rounds' pairs of windows measured back to back.",
    ),
    "",
    ...wrap(
      `This run (${run.date.slice(0, 10)}): ${run.rounds} round${run.rounds === 1 ? "" : "s"} of ${run.timing.durationS} s windows after ${run.timing.warmupS} s of warm-up, ${run.timing.connections} connections, ${run.logouts} requests per logout window${run.codes ? ` and ${run.codes} per OAuth code exchange window` : ""}; servers on Node ${run.node.replace(/^v/, "")}, ${run.cpus} CPUs, load average ${run.loadBefore} before and ${run.loadAfter} after. Milliseconds of CPU per answer with the route's status (200; 429 on the two cooldown rows). The OAuth and SCIM rows come from a second server of the same host with the OAuth provider on (OAUTH_PROVIDER), an OAuth client and a SAML connection whose SCIM directory holds one user; the filter names that user. Better Auth's come from a second server with its OAuth 2.1 provider (with the JWT plugin) and SCIM plugins, a client made through \`adminCreateOAuthClient\` and a SCIM connection of its configuration, likewise with one user.`,
    ),
    "",
    `| server, stores | route | server CPU | database CPU | bare framework | ours / bare | at most ${GOAL}× |`,
    "|---|---|---:|---:|---:|---:|---|",
  ];
  for (const row of run.rows) {
    const cells = [
      row.host,
      row.label,
      ms(row.serverMs),
      ms(row.databaseMs),
      ms(row.bareMs),
      ratioText(row),
      metText(row),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  lines.push(...floorLines(run.rows), ...loginLines(run.rows));
  return `${lines.join("\n")}\n`;
}

/** Writes the run's JSON and Markdown under bench/results/; answers the file stem. */
export function writeResults(run) {
  const dir = join(BENCH_DIR, "results");
  mkdirSync(dir, { recursive: true });
  const stem = `cpu-per-request-${run.date.replace(/[:.]/g, "-")}`;
  writeFileSync(join(dir, `${stem}.json`), `${JSON.stringify(run, null, 2)}\n`);
  writeFileSync(join(dir, `${stem}.md`), markdown(run));
  return stem;
}

const START = "<!-- cpu-per-request:start -->";
const END = "<!-- cpu-per-request:end -->";

/** Replaces what stands between docs/performance.md's cpu-per-request markers with the run's table. */
export function writePerformanceDoc(run) {
  const path = join(ROOT, "docs", "performance.md");
  const text = readFileSync(path, "utf8");
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/performance.md has no ${START} … ${END} markers`);
  const block = `${START}\n\n${markdown(run)}\n${END}`;
  writeFileSync(path, text.slice(0, start) + block + text.slice(end + END.length));
}
