// The server of bench/webhooks-login.mjs (a child process, WH_SERVE=<memory|redis|postgres> and
// WH_SIDE=<plain|audit|webhooks|sends>): an Express app with `createAuthRouter`, USERS users and
// the admin sharing one argon2id hash of PASSWORD (the core's default parameters), every store
// method wrapped with a counter and a timer, and the bench's own routes (/bench/*). The plain side
// has no `stores.auditLog`, `stores.webhooks` nor `webhooks` option, the audit side only
// `stores.auditLog`; otherwise the three are the same. The sends side is the plain side that also
// POSTs each event, signed, to a receiver (`directSends`): the floor of one HTTP exchange per event.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { Agent, request } from "node:http";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { email, PASSWORD, ROOT, SECRET } from "./servers.mjs";

const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
export const USERS = 1000;
const ADMIN = "admin@example.test";
const fromRoot = (path) => import(pathToFileURL(join(ROOT, path)).href);

/** Every method of `store`, own or inherited (class-based stores keep theirs on the prototype). */
function methodNames(store) {
  const names = new Set();
  for (let proto = store; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (name !== "constructor" && typeof descriptor?.value === "function") names.add(name);
    }
  }
  return names;
}

/**
 * Wraps each store's methods in place (identity kept) with a counter `<store>.<method>` and the
 * wall time until each call settled, summed in `times` (`{ ms, n }`).
 */
function countStoreCalls(stores, counts, times) {
  const wrapped = new Set();
  const time = (name, ms) => {
    const entry = times[name] ?? { ms: 0, n: 0 };
    times[name] = { ms: entry.ms + ms, n: entry.n + 1 };
  };
  for (const [name, store] of Object.entries(stores)) {
    if (store === null || typeof store !== "object" || wrapped.has(store)) continue;
    wrapped.add(store);
    for (const method of methodNames(store)) {
      const original = store[method];
      const counter = `${name}.${method}`;
      store[method] = function counted(...args) {
        counts[counter] = (counts[counter] ?? 0) + 1;
        const start = performance.now();
        const settled = () => time(counter, performance.now() - start);
        const result = original.apply(this, args);
        if (result instanceof Promise) result.then(settled, settled);
        else settled();
        return result;
      };
    }
  }
}

/**
 * The stores of `kind` for `side`: the plain side without auditLog and webhooks, the audit side
 * with the audit log only, the webhook side with both; and a `close()`.
 */
async function openStores(kind, side, counts) {
  const { createMemoryStores } = await fromRoot("packages/store-memory/dist/index.js");
  const memory = createMemoryStores({ sweepIntervalMs: 0 });
  let all = memory;
  let close = async () => {};
  if (kind === "redis") {
    const { createRedisClient, createRedisStores } = await fromRoot("packages/store-redis/dist/index.js");
    const client = createRedisClient(REDIS_URL);
    await new Promise((resolve) => client.once("ready", resolve));
    const sendCommand = client.sendCommand;
    client.sendCommand = function counted(...args) {
      counts.wire = (counts.wire ?? 0) + 1;
      return sendCommand.apply(this, args);
    };
    const keyPrefix = `portcullis-webhooks-bench:${process.pid}:`;
    all = { ...createRedisStores({ client, keyPrefix }), users: memory.users };
    close = async () => {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${keyPrefix}*`, "COUNT", 1000);
        if (keys.length > 0) await client.del(...keys);
        cursor = next;
      } while (cursor !== "0");
      client.disconnect();
    };
  } else if (kind === "postgres") {
    const fromSql = createRequire(join(ROOT, "packages/store-sql/package.json"));
    const pg = fromSql("pg");
    const { Kysely, PostgresDialect } = await import(pathToFileURL(fromSql.resolve("kysely")).href);
    const sql = await fromRoot("packages/store-sql/dist/index.js");
    class CountingClient extends pg.Client {
      query(...args) {
        counts.wire = (counts.wire ?? 0) + 1;
        return super.query(...args);
      }
    }
    const pool = sql.discardTimedOutConnections(
      new pg.Pool({
        connectionString: process.env.DATABASE_URL,
        max: 10, // the examples' pool
        Client: CountingClient,
        ...sql.postgresPoolOptions(),
      }),
    );
    const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    all = sql.createSqlStores({ db });
    await all.migrate();
    close = () => db.destroy();
  }
  const { auditLog, webhooks, ...rest } = all;
  const sides = {
    plain: rest,
    sends: rest,
    audit: { ...rest, auditLog },
    webhooks: { ...rest, auditLog, webhooks },
  };
  return { stores: sides[side], close };
}

/** USERS users (`user<i>@…`) and the admin, all with one argon2id hash of PASSWORD (default parameters). */
async function seed(core, users) {
  const passwordHash = await core.createArgon2Hasher().hash(PASSWORD.normalize("NFKC"));
  const record = (address) => ({
    id: createHash("sha256").update(address).digest("base64url").slice(0, 22),
    email: address,
    emailVerified: true,
    name: null,
    passwordHash,
    identityProviders: [],
    twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
    createdAt: Date.now(),
  });
  const addresses = [ADMIN, ...Array.from({ length: USERS }, (_, i) => email(i))];
  for (let i = 0; i < addresses.length; i += 50)
    await Promise.all(addresses.slice(i, i + 50).map((address) => users.create(record(address))));
}

/** The deployment's endpoint for every event at `url`, made by the admin through `auth.webhooks`. */
async function createEndpoint(auth, url) {
  const { accessToken } = await auth.login({}, { email: ADMIN, password: PASSWORD });
  const principal = await auth.authenticate({ token: accessToken });
  const { stepUpToken } = await auth.stepUp({ principal }, { password: PASSWORD });
  return auth.webhooks.create({ principal, stepUpToken }, { url, events: ["*"] });
}

/**
 * The floor under the engine: each event POSTed to `url` as a Standard Webhooks message (the same
 * HMAC-SHA-256 over `<id>.<timestamp>.<body>`, so the receiver checks it as it checks the engine's),
 * one at a time in the order of the events, over one kept-alive connection; no audit log, no
 * outbox, no bookkeeping. What is left is what the scheme asks for: one HTTP exchange per event.
 */
function directSends() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const queue = [];
  let target;
  let sending = false;
  const send = (event) =>
    new Promise((resolve) => {
      const id = `msg_${randomBytes(12).toString("base64url")}`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const body = JSON.stringify({
        type: event.type,
        timestamp: new Date(event.time).toISOString(),
        data: {
          id,
          actorType: "user",
          actorId: event.userId,
          userId: event.userId,
          organizationId: null,
          sessionId: event.sessionId,
          reason: event.reason ?? null,
          ip: event.ip,
          userAgent: event.userAgent,
        },
      });
      const signature = createHmac("sha256", target.key)
        .update(`${id}.${timestamp}.${body}`)
        .digest("base64");
      const outgoing = request(target.url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": timestamp,
          "webhook-signature": `v1,${signature}`,
        },
      });
      outgoing.on("response", (answer) => answer.resume().on("end", resolve).on("error", resolve));
      outgoing.on("error", resolve);
      outgoing.end(body);
    });
  const pump = async () => {
    if (sending) return;
    sending = true;
    while (queue.length > 0) await send(queue.shift());
    sending = false;
  };
  return {
    /** Starts sending to `url`; the secret the receiver checks with. */
    to(url) {
      const key = randomBytes(24);
      target = { url, key };
      return `whsec_${key.toString("base64")}`;
    },
    event(event) {
      if (target === undefined) return;
      queue.push(event);
      void pump();
    },
  };
}

/** An Express app with the auth routes and the bench's own routes; prints its URL. */
async function serve(kind, side) {
  const core = await fromRoot("packages/core/dist/index.js");
  const { createAuthRouter } = await fromRoot("packages/adapter-express/dist/index.js");
  const express = createRequire(join(ROOT, "packages/adapter-express/package.json"))("express");
  const counts = {};
  const times = {};
  const { stores, close } = await openStores(kind, side, counts);
  await seed(core, stores.users);
  let events = 0;
  let logins = 0;
  let inFlight = 0;
  const whenDrained = [];
  const gather = () => (process.env.WH_GATHER_MS ? { gatherMs: Number(process.env.WH_GATHER_MS) } : {});
  const direct = side === "sends" ? directSends() : undefined;
  const auth = core.createAuth({
    secret: SECRET,
    stores,
    logger: core.silentLogger,
    email: { enabled: false },
    admin: { authorize: (_principal, user) => user.email === ADMIN },
    // Both sides count the events they emit (the webhook side's receiver should get each one).
    onEvent: (event) => {
      events += 1;
      direct?.event(event);
    },
    // WH_GATHER_MS: the engine's `gatherMs` (its default when unset), for an A/B of the gathering.
    ...(side === "webhooks" ? { webhooks: { allowPrivateNetworks: true, ...gather() } } : {}),
  });
  await auth.ready();
  countStoreCalls(stores, counts, times);
  const app = express();
  // The auth routes' requests still being handled. Counted at `res.end`, not at the socket's
  // close: autocannon drops the connections of its last requests, and their handlers run on.
  app.use("/api", (req, res, next) => {
    inFlight += 1;
    const end = res.end;
    res.end = function ended(...args) {
      res.end = end;
      inFlight -= 1;
      if (req.originalUrl === "/api/auth/login" && res.statusCode === 200) logins += 1;
      if (inFlight === 0) for (const resolve of whenDrained.splice(0)) resolve();
      return end.apply(this, args);
    };
    next();
  });
  app.use(createAuthRouter(auth));
  app.get("/bench/counts", (_req, res) => res.json({ counts, times, events, logins }));
  // Answers once no auth request is in flight and their background work (the activity record,
  // the events, the audit entries; not the webhook engine) is done: one request, so waiting costs
  // the server nothing.
  app.get("/bench/drained", async (_req, res) => {
    if (inFlight > 0) await new Promise((resolve) => whenDrained.push(resolve));
    await auth.idle();
    res.json({ counts, events, logins });
  });
  app.post("/bench/counts/reset", (_req, res) => {
    for (const name of Object.keys(counts)) delete counts[name];
    for (const name of Object.keys(times)) delete times[name];
    logins = 0;
    res.json({});
  });
  app.get("/bench/cpu", (_req, res) => {
    const { user, system } = process.cpuUsage();
    res.json({ micros: user + system });
  });
  app.post("/bench/endpoint", express.json(), async (req, res) => {
    if (direct) {
      res.json({ secret: direct.to(req.body.url), events });
      return;
    }
    const created = await createEndpoint(auth, req.body.url);
    res.json({ secret: created.secret, events });
  });
  const server = app.listen(0, "127.0.0.1", () => {
    console.log(`http://127.0.0.1:${server.address().port}`);
  });
  process.once("SIGINT", async () => {
    server.close();
    await auth.webhooks.stop();
    await auth.idle();
    await close();
    process.exit(0);
  });
}

if (process.env.WH_SERVE) await serve(process.env.WH_SERVE, process.env.WH_SIDE);
