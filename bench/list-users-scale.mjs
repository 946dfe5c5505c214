// admin.listUsers over 1,000,000 users on PostgreSQL (issue 32: a page in under 50 ms).
// Creates a database of its own (portcullis_bench_list_users_<pid>), migrates it with store-sql's
// migrations (the real schema and the collate "C" index of 0012_back_office), seeds the users with
// one INSERT ... SELECT generate_series, then times pages of auth.host.listUsers through the real
// store: the first page, address-prefix queries, and pages deep in the cursor. Prints the median and
// p95 per kind and the EXPLAIN (ANALYZE, BUFFERS) of a deep page's query. Drops the database at the end.
// Run: pnpm bench:list-users   (PostgreSQL at PG_URL, default postgres://postgres@127.0.0.1:5432/postgres)
import { createRequire } from "node:module";
import { createArgon2Hasher, createAuth, silentLogger } from "../packages/core/dist/index.js";
import { createSqlStores, migrate } from "../packages/store-sql/dist/index.js";

const require = createRequire(new URL("../packages/store-sql/package.json", import.meta.url));
const pg = require("pg");
const { Kysely, PostgresDialect } = require("kysely");

const USERS = Number(process.env.USERS ?? 1_000_000);
const PAGES = Number(process.env.PAGES ?? 200);
const LIMIT = 20;
const adminUrl = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = `portcullis_bench_list_users_${process.pid}`;
const dbUrl = new URL(adminUrl);
dbUrl.pathname = `/${database}`;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${database}`);
const pool = new pg.Pool({ connectionString: dbUrl.href, max: 4 });
const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
try {
  await migrate(db);
  const started = performance.now();
  // Addresses that spread over the alphabet like real ones: 8 hex characters, the row's number, a domain.
  await pool.query(
    `insert into portcullis_users (id, email, email_verified, name, password_hash, identity_providers,
       two_factor_methods, recovery_code_hashes, created_at)
     select 'u' || i, substr(md5(i::text), 1, 8) || '.' || i || '@example' || (i % 7) || '.test', true,
       null, '$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo', '[]', '[]', '[]',
       1700000000000 + i
     from generate_series(1, $1) as i`,
    [USERS],
  );
  await pool.query("analyze portcullis_users");
  const { rows: count } = await pool.query("select count(*)::int as n from portcullis_users");
  console.log(`seeded ${count[0].n} users in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const auth = createAuth({
    secret: "bench-secret-BXxwyWEK8C2hRsytFMDjfGkRCy75Tcpix15e6koVF7Y",
    stores: createSqlStores({ db }),
    email: { enabled: false },
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
  });
  await auth.ready();
  const call = { actor: "bench" };

  /** Times `PAGES` pages, each from `page(i)`; checks each page is full and in order. */
  const measure = async (label, page, { mayBeEmpty = false } = {}) => {
    for (let i = 0; i < 10; i++) await page(i); // warm the pool and the plan cache
    const times = [];
    for (let i = 0; i < PAGES; i++) {
      const t0 = performance.now();
      const result = await page(i);
      times.push(performance.now() - t0);
      const emails = result.items.map((user) => user.email);
      if (emails.length === 0 && !mayBeEmpty) throw new Error(`${label}: an empty page`);
      if (
        emails.some(
          (email, k) => k > 0 && Buffer.compare(Buffer.from(emails[k - 1]), Buffer.from(email)) >= 0,
        )
      )
        throw new Error(`${label}: a page out of order`);
    }
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
    console.log(`${label.padEnd(44)} median ${at(0.5)} ms   p95 ${at(0.95)} ms   max ${at(1)} ms`);
    return { median: Number(at(0.5)), p95: Number(at(0.95)) };
  };

  const results = {};
  results.first = await measure("first page (no query)", () => auth.host.listUsers(call, { limit: LIMIT }));
  const prefixes = Array.from({ length: 16 * 16 }, (_, i) => i.toString(16).padStart(2, "0"));
  results.prefix2 = await measure("prefix of 2 characters (~3,900 matches)", (i) =>
    auth.host.listUsers(call, { query: prefixes[i % prefixes.length], limit: LIMIT }),
  );
  results.prefix4 = await measure(
    "prefix of 4 characters (~15 matches)",
    (i) =>
      auth.host.listUsers(call, { query: `${prefixes[i % 256]}${prefixes[(i * 7) % 256]}`, limit: LIMIT }),
    { mayBeEmpty: true },
  );
  // Deep pages: the cursor a previous page would hand out after a random address of the table (the
  // cursor is `u1.<address>` base64url, see packages/core/src/use-cases/list-users.ts).
  const { rows: sample } = await pool.query(
    `select email from portcullis_users tablesample system (1) order by random() limit ${PAGES + 10}`,
  );
  const cursors = sample.map(({ email }) => Buffer.from(`u1.${email}`, "utf8").toString("base64url"));
  results.deep = await measure("a page deep in the cursor (random position)", (i) =>
    auth.host.listUsers(call, { cursor: cursors[i], limit: LIMIT }),
  );
  let cursor;
  let walked = 0;
  results.walk = await measure("the next page, walking the cursor", async () => {
    const page = await auth.host.listUsers(call, { cursor, limit: LIMIT });
    cursor = page.nextCursor ?? undefined;
    walked += page.items.length;
    return page;
  });
  const prefixCursors = [];
  for (const query of prefixes)
    prefixCursors.push({
      query,
      cursor: (await auth.host.listUsers(call, { query, limit: LIMIT })).nextCursor,
    });
  results.deepPrefix = await measure("second page of a prefix query (cursor)", (i) =>
    auth.host.listUsers(call, { ...prefixCursors[i % prefixCursors.length], limit: LIMIT }),
  );
  console.log(`(walked ${walked} users page by page from the start)`);

  const after = sample[0].email;
  const { rows: plan } = await pool.query(
    `explain (analyze, buffers) select * from portcullis_users
     where email collate "C" > $1 order by email collate "C" limit ${LIMIT + 1}`,
    [after],
  );
  console.log("\nEXPLAIN ANALYZE of a deep page (the store's query):");
  for (const row of plan) console.log(`  ${row["QUERY PLAN"]}`);
  const { rows: prefixPlan } = await pool.query(
    `explain (analyze, buffers) select * from portcullis_users
     where email collate "C" >= $1 and email collate "C" < $2 order by email collate "C" limit ${LIMIT + 1}`,
    ["ab", "ab\u{10FFFF}"],
  );
  console.log("\nEXPLAIN ANALYZE of a prefix page:");
  for (const row of prefixPlan) console.log(`  ${row["QUERY PLAN"]}`);

  const worst = Math.max(...Object.values(results).map((r) => r.p95));
  console.log(`\nworst p95 ${worst} ms: ${worst < 50 ? "under" : "NOT under"} the 50 ms of issue 32`);
  await auth.idle?.();
} finally {
  await db.destroy();
  await admin.query(`drop database if exists ${database} with (force)`);
  await admin.end();
}
