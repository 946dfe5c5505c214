// The full-size checks of bench/scale.mjs: EXPLAIN of the statements the paths sent, and requests
// timed while store-sql's sweep deletes a million expired rows.
import { load1, pg, summary } from "./scale-measure.mjs";
import { seedExpired } from "./scale-seed.mjs";

/**
 * `EXPLAIN (ANALYZE)` of each statement seen, with the parameters of its last call, inside a
 * transaction rolled back (writes leave nothing). Prints each plan's scan nodes and flags a
 * sequential scan of a store table. Resolves to the statements that had one.
 */
export async function explainSeen(pool, seen) {
  console.log(`\nEXPLAIN of the ${seen.size} statements the paths sent, at full size:`);
  const flagged = [];
  for (const [shape, { text, values, path }] of seen) {
    const client = await pool.connect();
    let lines;
    try {
      await client.query("begin");
      const explain = (options) => client.query(`explain (${options}) ${text}`, values);
      const { rows } = await explain("analyze, costs off, timing off, summary on").catch(async () => {
        await client.query("rollback");
        await client.query("begin");
        return explain("costs off");
      });
      lines = rows.map((row) => row["QUERY PLAN"]);
    } finally {
      await client.query("rollback");
      client.release();
    }
    const scans = lines.filter((line) => /Scan|Conflict Arbiter|Insert on|Execution Time/.test(line));
    const seq = lines.filter((line) => /Seq Scan on portcullis_/.test(line));
    if (seq.length > 0) flagged.push({ path, shape, seq });
    const short = shape.length > 150 ? `${shape.slice(0, 147)}...` : shape;
    console.log(`  [${path}] ${short}\n      ${scans.map((line) => line.trim()).join("\n      ")}`);
  }
  console.log(
    flagged.length === 0
      ? "  no sequential scan of a store table in any hot statement"
      : `  SEQUENTIAL SCANS: ${flagged.map((f) => `[${f.path}] ${f.seq.join("; ")}`).join(" | ")}`,
  );
  return flagged;
}

/** Alternates GET /me and the reset 429 until `done()`, at least `min` of each; their times. */
async function alternate(paths, done, min, { expired = false } = {}) {
  const times = { me: [], reset429: [], expired: [] };
  const calls = { me: paths.me, reset429: paths.reset429 };
  // An address whose cooldown row is expired and in the sweep's way: the acquire's upsert meets it.
  if (expired) calls.expired = (k) => paths.resetRequest(`expired${1 + k * 97}@example.test`, 200);
  for (let k = 0; k < min || !done(); k++) {
    for (const [name, call] of Object.entries(calls)) {
      const t0 = performance.now();
      await call(k);
      times[name].push(performance.now() - t0);
    }
  }
  return times;
}

/** Every 20 ms: backends of this database waiting on a lock, and the relation locks the sweep's DELETE holds. */
function watchLocks(connectionString) {
  const client = new pg.Client({ connectionString });
  const seen = { waits: [], sweepLocks: new Set(), ticks: 0 };
  let stop = false;
  const running = (async () => {
    await client.connect();
    while (!stop) {
      const { rows: waits } = await client.query(
        `select wait_event_type, wait_event, left(query, 80) as query from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
      );
      seen.waits.push(...waits);
      const { rows: locks } = await client.query(
        `select l.relation::regclass::text as relation, l.mode from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where a.datname = current_database() and a.query like 'delete from%' and a.state = 'active' and l.locktype = 'relation'`,
      );
      for (const { relation, mode } of locks) seen.sweepLocks.add(`${relation}: ${mode}`);
      seen.ticks++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
  })();
  const halt = () => {
    stop = true;
    return running;
  };
  return { seen, stop: halt };
}

const line = (label, { median, p95, max, n }) =>
  `  ${label.padEnd(44)} median ${median.toFixed(2)} ms  p95 ${p95.toFixed(2)} ms  max ${max.toFixed(2)} ms  (n=${n})`;

/**
 * Seeds `rows` expired rows (a quarter each in sessions, allowlist, cooldowns, counters), times
 * GET /me and the reset 429 alone, then again while `stores.sweep()` runs, watching lock waits.
 */
export async function sweepUnderLoad({ pool, stores, paths, rows }) {
  const seeded = await seedExpired(pool, rows, Date.now());
  console.log(
    `\nsweep under load: ${rows.toLocaleString("en-US")} expired rows seeded in ${seeded.toFixed(1)} s`,
  );
  const before = await alternate(paths, () => true, 200);
  const watcher = watchLocks(pool.options.connectionString);
  let finished = false;
  const t0 = performance.now();
  const sweep = stores.sweep().finally(() => {
    finished = true;
  });
  const during = await alternate(paths, () => finished, 20, { expired: true });
  const removed = await sweep;
  const seconds = (performance.now() - t0) / 1000;
  await watcher.stop();
  console.log(
    `  sweep removed ${removed.toLocaleString("en-US")} rows in ${seconds.toFixed(1)} s (load average ${load1()})`,
  );
  for (const name of ["me", "reset429"]) {
    console.log(line(`${name === "me" ? "GET /me" : "reset 429"}, before the sweep`, summary(before[name])));
    console.log(line(`${name === "me" ? "GET /me" : "reset 429"}, during the sweep`, summary(during[name])));
  }
  console.log(line("reset of an address whose row is being swept", summary(during.expired)));
  const { waits, sweepLocks, ticks } = watcher.seen;
  console.log(`  relation locks the sweep's DELETEs held: ${[...sweepLocks].join(", ") || "(none seen)"}`);
  console.log(
    `  backends waiting on a lock, over ${ticks} samples: ${waits.length}${waits.length ? ` (${[...new Set(waits.map((w) => `${w.wait_event}: ${w.query}`))].join("; ")})` : ""}`,
  );
  return { removed, seconds, before, during, waits: waits.length };
}

/** The store's tables holding rows, with their row estimates and sizes, printed (names padded to `pad`). */
export async function tableSizes(pool, pad = 32) {
  const { rows } = await pool.query(
    `select relname, reltuples::bigint as rows, pg_size_pretty(pg_total_relation_size(oid)) as size
     from pg_class where relkind = 'r' and relname like 'portcullis_%' and reltuples > 0 order by relname`,
  );
  for (const row of rows)
    console.log(
      `  ${row.relname.padEnd(pad)} ~${Number(row.rows).toLocaleString("en-US")} rows  ${row.size}`,
    );
  return rows.map((row) => ({ table: row.relname, rows: Number(row.rows), size: row.size }));
}
