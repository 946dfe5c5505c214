// Seeding for bench/scale.mjs: rows of PostgreSQL (store-sql's tables, as its stores write them)
// and keys of Redis (store-redis's layout), for the users numbered (from, to]. Every user i has 5
// sessions, each with its access token on the allowlist, 5 cooldowns and 5 counters (so 10 limit
// rows a user). Addresses, ids and keys are functions of i, so the benchmark can pick any seeded
// user: `seededEmail(i)`, `seededUserId(i)`.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { once } from "node:events";

export const SESSIONS_PER_USER = 5;
export const LIMITS_PER_USER = 10;
const HOUR = 3_600_000;

/** The address of seeded user i, spread over the alphabet like real ones (as list-users-scale.mjs). */
export const seededEmail = (i) =>
  `${createHash("md5").update(String(i)).digest("hex").slice(0, 8)}.${i}@example${i % 7}.test`;
export const seededUserId = (i) => `u${i}`;
/** The same address in SQL, for the row numbered by the expression `i`. */
const SQL_EMAIL = (i) =>
  `substr(md5(${i}::text), 1, 8) || '.' || ${i} || '@example' || (${i} % 7) || '.test'`;
const SQL_IP = (i) => `'10.' || (${i} / 65536 % 256) || '.' || (${i} / 256 % 256) || '.' || (${i} % 256)`;

/**
 * The cooldown keys of user i as the core writes them: one per email kind (send-with-cooldown.ts:
 * `email:<kind>:<address>`) and a TOTP step (two-factor/check.ts). Odd users are unverified, so
 * their `email-verification` cooldown is the one a verification send meets.
 */
const COOLDOWN_KEYS = [
  (e) => `'email:password-reset:' || ${e}`,
  (e) => `'email:email-verification:' || ${e}`,
  (e) => `'email:email-sign-in:' || ${e}`,
  (e) => `'email:two-factor-code:' || ${e}`,
  (_e, i) => `'two-factor:totp-step:u' || ${i} || ':' || (59000000 + ${i} % 1000)`,
];
/** The counter keys of user i (limits/throttle.ts: `throttle:<name>:<subject>`), the per-IP ones on an address of user i's. */
const COUNTER_KEYS = [
  (e) => `'throttle:password:' || ${e}`,
  (e) => `'throttle:email-sign-in-code:' || ${e}`,
  (_e, _i, ip) => `'throttle:ip:failedLogins:' || ${ip}`,
  (_e, _i, ip) => `'throttle:ip:passwordResetRequests:' || ${ip}`,
  (_e, _i, ip) => `'throttle:ip:verificationSends:' || ${ip}`,
];

/** Times `work`, returns seconds. */
async function timed(work) {
  const t0 = performance.now();
  await work();
  return (performance.now() - t0) / 1000;
}

/**
 * Users (from, to] with the shared `passwordHash`, their sessions, allowlist rows, cooldowns and
 * counters, one `INSERT … SELECT generate_series` per table (several per limit table); then ANALYZE.
 * Resolves to the seconds each table took.
 */
export async function seedPostgres(pool, { from, to, passwordHash, now }) {
  const times = {};
  const s0 = from * SESSIONS_PER_USER;
  const s1 = to * SESSIONS_PER_USER;
  times.users = await timed(() =>
    pool.query(
      `insert into portcullis_users (id, email, email_verified, name, password_hash, identity_providers,
         two_factor_methods, recovery_code_hashes, created_at, last_sign_in_at)
       select 'u' || i, ${SQL_EMAIL("i")}, i % 2 = 0, 'User ' || i, $3, '[]', '[]', '[]', $4::bigint - i, $4::bigint - i % 86400000
       from generate_series($1::bigint + 1, $2::bigint) as i`,
      [from, to, passwordHash, now],
    ),
  );
  // Session j belongs to user (j - 1) / 5 + 1; its access token is 'j<j>'.
  times.sessions = await timed(() =>
    pool.query(
      `insert into portcullis_sessions (id, user_id, browser, os, ip, created_at, last_active_at,
         refresh_token_hash, previous_refresh_token_hashes, access_token_jti, access_token_expires_at,
         expires_at, remember_me)
       select 's' || j, 'u' || ((j - 1) / 5 + 1), 'Chrome 131', 'Linux', ${SQL_IP("j")}, $3::bigint - j % 86400000,
         $3::bigint - j % 3600000, md5('r' || j), '[]', 'j' || j, $3::bigint + ${2 * HOUR}, $3::bigint + ${30 * 24 * HOUR}, 1
       from generate_series($1::bigint + 1, $2::bigint) as j`,
      [s0, s1, now],
    ),
  );
  times.allowlist = await timed(() =>
    pool.query(
      `insert into portcullis_access_tokens (jti, user_id, session_id, expires_at)
       select 'j' || j, 'u' || ((j - 1) / 5 + 1), 's' || j, $3::bigint + ${2 * HOUR}
       from generate_series($1::bigint + 1, $2::bigint) as j`,
      [s0, s1, now],
    ),
  );
  const keyed = (keys) =>
    keys
      .map((key) => key(SQL_EMAIL("i"), "i", SQL_IP("i")))
      .map((key) => `select ${key} as id, i from generate_series($1::bigint + 1, $2::bigint) as i`)
      .join(" union all ");
  times.cooldowns = await timed(() =>
    pool.query(
      `insert into portcullis_cooldowns (id, holder, expires_at)
       select k.id, md5(k.id)::uuid::text, $3::bigint + ${2 * HOUR} + k.i % 60000 from (${keyed(COOLDOWN_KEYS)}) k`,
      [from, to, now],
    ),
  );
  times.counters = await timed(() =>
    pool.query(
      `insert into portcullis_counters (id, hits, expires_at)
       select k.id, 1 + k.i % 3, $3::bigint + ${2 * HOUR} + k.i % 60000 from (${keyed(COUNTER_KEYS)}) k`,
      [from, to, now],
    ),
  );
  times.analyze = await timed(() => pool.query("analyze"));
  return times;
}

/**
 * `count` expired rows spread over the tables `sweep` empties (sessions, allowlist, cooldowns,
 * counters, a quarter each), with ids of their own.
 */
export async function seedExpired(pool, count, now) {
  const quarter = Math.floor(count / 4);
  const past = now - HOUR;
  return timed(async () => {
    await pool.query(
      `insert into portcullis_sessions (id, user_id, created_at, last_active_at, refresh_token_hash,
         previous_refresh_token_hashes, access_token_jti, access_token_expires_at, expires_at)
       select 'xs' || j, 'u' || (j % 1000 + 1), $2::bigint - 86400000, $2::bigint - 86400000, md5('x' || j), '[]', 'xj' || j, $2::bigint, $2::bigint
       from generate_series(1, $1) as j`,
      [quarter, past],
    );
    await pool.query(
      `insert into portcullis_access_tokens (jti, user_id, session_id, expires_at)
       select 'xj' || j, 'u' || (j % 1000 + 1), 'xs' || j, $2::bigint from generate_series(1, $1) as j`,
      [quarter, past],
    );
    await pool.query(
      `insert into portcullis_cooldowns (id, holder, expires_at)
       select 'email:password-reset:expired' || j || '@example.test', 'h', $2::bigint from generate_series(1, $1) as j`,
      [quarter, past],
    );
    await pool.query(
      `insert into portcullis_counters (id, hits, expires_at)
       select 'throttle:password:expired' || j || '@example.test', 1, $2::bigint from generate_series(1, $1) as j`,
      [quarter, past],
    );
  });
}

const TAG_LENGTH = 11;
/** store-redis's user tag (redis-stores.ts `userTag`): the first 11 characters of the id's SHA-256, base64url. */
const userTag = (userId) => createHash("sha256").update(userId).digest("base64url").slice(0, TAG_LENGTH);
const filler = (tag, what, n) => `${tag}${what}${String(n).padStart(21, "0")}`;

/** The commands that write user i's keys as store-redis does, each `[command, ...args]`. */
function redisCommandsOf(i, prefix, now) {
  const userId = seededUserId(i);
  const email = seededEmail(i);
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const tag = userTag(userId);
  const space = `${prefix}{${tag}}:`;
  const commands = [];
  const sessionIds = [];
  const sessionTtl = 30 * 24 * HOUR;
  for (let k = 0; k < SESSIONS_PER_USER; k++) {
    const id = filler(tag, "s", i * SESSIONS_PER_USER + k);
    const jti = filler(tag, "j", i * SESSIONS_PER_USER + k);
    sessionIds.push(id);
    const record = {
      id,
      userId,
      browser: "Chrome 131",
      os: "Linux",
      ip,
      createdAt: now - (i % 86_400_000),
      lastActiveAt: now - (i % 3_600_000),
      refreshTokenHash: createHash("sha256").update(id).digest("base64url"),
      accessTokenJti: jti,
      rememberMe: true,
    };
    const stored = { record, previousHashes: [], startedAt: record.createdAt };
    commands.push(["set", `${space}s:${id}`, JSON.stringify(stored), "PX", sessionTtl]);
    commands.push(["set", `${space}at:${jti}`, JSON.stringify({ userId, sessionId: id }), "PX", 2 * HOUR]);
  }
  commands.push(["sadd", `${space}sessions`, ...sessionIds], ["pexpire", `${space}sessions`, sessionTtl]);
  for (const key of [
    `email:password-reset:${email}`,
    `email:email-verification:${email}`,
    `email:email-sign-in:${email}`,
    `email:two-factor-code:${email}`,
    `two-factor:totp-step:${userId}:${59_000_000 + (i % 1000)}`,
  ])
    commands.push(["set", `${prefix}cd:{${key}}`, "1", "PX", 2 * HOUR + (i % 60_000)]);
  for (const key of [
    `throttle:password:${email}`,
    `throttle:email-sign-in-code:${email}`,
    `throttle:ip:failedLogins:${ip}`,
    `throttle:ip:passwordResetRequests:${ip}`,
    `throttle:ip:verificationSends:${ip}`,
  ])
    commands.push(["set", `${prefix}ct:{${key}}`, String(1 + (i % 3)), "PX", 2 * HOUR + (i % 60_000)]);
  return commands;
}

/** One command in Redis's protocol (RESP). */
function resp(args) {
  let out = `*${args.length}\r\n`;
  for (const arg of args) {
    const text = String(arg);
    out += `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
  }
  return out;
}

/**
 * Users (from, to]'s keys (no users: they stay in SQL), as RESP piped into `redis-cli --pipe`
 * (ioredis pipelines managed about 13,000 commands a second here). Rejects on any error reply.
 */
export async function seedRedis(url, { from, to, prefix, now }) {
  const { hostname, port } = new URL(url);
  return timed(async () => {
    const cli = spawn("redis-cli", ["-h", hostname, "-p", port, "--pipe"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    cli.stdout.on("data", (data) => {
      output += data;
    });
    const exited = once(cli, "exit");
    for (let start = from + 1; start <= to; start += 1000) {
      let chunk = "";
      for (let i = start; i < Math.min(start + 1000, to + 1); i++)
        for (const command of redisCommandsOf(i, prefix, now)) chunk += resp(command);
      if (!cli.stdin.write(chunk)) await once(cli.stdin, "drain");
    }
    cli.stdin.end();
    const [code] = await exited;
    if (code !== 0 || !/errors: 0,/.test(output)) throw new Error(`redis-cli --pipe: ${output.trim()}`);
  });
}
