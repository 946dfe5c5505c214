// Where a login's CPU goes, on Linux: the CPU seconds a server process (its argon2id threads
// included) and every PostgreSQL process used over a window, from /proc, per request answered.
// On the bench's 2 cores PostgreSQL runs beside the hash: its CPU per login is taken from the
// hash's, which is why a login on PostgreSQL cannot reach the raw argon2id ceiling there.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_S = 100;

/** User + system CPU seconds of process `pid` (0 when it cannot be read). */
export function processCpuS(pid) {
  try {
    // After the last ")": the command name in parentheses may itself hold one.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of process `pid`'s main thread (JavaScript: HTTP, the store's driver, the use case)
 * and of its other threads together (libuv's pool, where argon2id runs, and V8's helpers).
 */
export function threadCpuS(pid) {
  let others = 0;
  let main = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const seconds = processCpuS(`${pid}/task/${tid}`);
      if (tid === String(pid)) main = seconds;
      else others += seconds;
    }
  } catch {
    // The process ended, or a thread ended between the listing and its read.
  }
  return { main, others };
}

/** CPU seconds of every process named postgres (the server's backends and helpers). */
function postgresCpuS() {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").startsWith("postgres")) total += processCpuS(entry);
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

export const cpuSplitAvailable = process.platform === "linux";

/**
 * Wraps a measured autocannon window (`load`'s `around`): records into `sink` the CPU milliseconds
 * per answered request of the server `pid` (`serverMs`; of it, `mainThreadMs` and
 * `otherThreadsMs`) and of PostgreSQL (`postgresMs`).
 */
export const cpuSplitAround = (pid, sink) => async (window) => {
  const server = processCpuS(pid);
  const threads = threadCpuS(pid);
  const postgres = postgresCpuS();
  const result = await window();
  const requests = result.requests.total;
  const perRequestMs = (seconds) => (requests > 0 ? (seconds * 1000) / requests : 0);
  const threadsAfter = threadCpuS(pid);
  sink.serverMs = perRequestMs(processCpuS(pid) - server);
  sink.mainThreadMs = perRequestMs(threadsAfter.main - threads.main);
  sink.otherThreadsMs = perRequestMs(threadsAfter.others - threads.others);
  sink.postgresMs = perRequestMs(postgresCpuS() - postgres);
  return result;
};

/** CPU milliseconds per verify of this process over `window()` (raw argon2id, in process). */
export async function withOwnCpu(window) {
  const before = process.cpuUsage();
  const started = performance.now();
  const rate = await window();
  const used = process.cpuUsage(before);
  const verifies = (rate * (performance.now() - started)) / 1000;
  return { rate, cpuMs: verifies > 0 ? (used.user + used.system) / 1000 / verifies : 0 };
}
