import { afterAll, describe, expect, it } from "vitest";
import { canStartPostgres, startPostgresServer } from "../../../packages/store-sql/src/test-databases.js";
import { canStartRedis, OutageExample, registerForLogin } from "./outage-example.js";

// docs/limits.md, "Outages": an outage never counts against a user. A store of the test's own (PostgreSQL
// through DATABASE_URL, or Redis through REDIS_URL) is stopped for 10 s while a client retries its
// login every 2 s; it must sign in within 2 s of the store being back, and every failing answer
// must carry the failing store's 500 code. docs/deploying.md ("Outages") quotes the figures.
const OUTAGE_MS = 10_000;
const RETRY_MS = 2_000;
/** The longest a login may take while the store's connections are made again. */
const REQUEST_MS = 1_000;
/**
 * The longest time from Redis answering again to the example's client being ready: the wait
 * between ioredis's reconnection attempts with createRedisClient's defaults (250 ms), and the
 * connect and ready check with room for a busy machine.
 */
const REDIS_RECONNECT_MS = 500;

interface Store {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Registers `email`, stops the store, and lets a client try to sign in every 2 s from the stop
 * until it gets a 200. Returns the codes of the failing answers, the milliseconds from the
 * store's return (its server answers again) to the successful sign-in, and when each attempt started.
 */
async function retryThroughOutage(baseUrl: string, email: string, store: Store) {
  const login = await registerForLogin(baseUrl, email);
  await store.stop();
  let backAt: number | undefined;
  const restart = new Promise<void>((resolve, reject) => {
    setTimeout(() => {
      store.start().then(() => {
        backAt = Date.now();
        resolve();
      }, reject);
    }, OUTAGE_MS);
  });
  const failures: string[] = [];
  /** When each attempt started, in ms from the store's return (negative: during the outage). */
  const starts: number[] = [];
  const deadline = Date.now() + OUTAGE_MS + 20_000;
  for (;;) {
    const started = Date.now();
    starts.push(started);
    const response = await login();
    if (response.status === 200) break;
    failures.push(`${response.status} ${response.headers.get("auth-error-code")}`);
    if (Date.now() > deadline) throw new Error(`no sign-in after the outage: ${failures.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, RETRY_MS - (Date.now() - started))));
  }
  const signedInAt = Date.now();
  await restart;
  const back = backAt ?? signedInAt;
  const fromBack = starts.map((at) => at - back);
  return {
    failures,
    recoveryMs: signedInAt - back,
    /** When the last failed attempt started, in ms from the store's return. */
    lastFailureMs: Math.max(...fromBack.slice(0, -1)),
    attemptsFromRecoveryMs: fromBack,
  };
}

// Users in PostgreSQL with sessions and cooldowns (so the login budgets) either on a Redis that
// stays up, or in the same PostgreSQL (then the budgets go down with it).
for (const withRedis of [true, false]) {
  const where = withRedis ? "budgets on Redis" : "budgets in PostgreSQL too";
  describe.skipIf(!canStartPostgres || (withRedis && !canStartRedis))(
    `example: express + postgres outage recovery, ${where}`,
    () => {
      let pg: Awaited<ReturnType<typeof startPostgresServer>> | undefined;
      const running = new OutageExample();
      afterAll(async () => {
        await running.closeApp();
        // The server goes first: its pool's idle connections then end while the pool still
        // listens for their errors (`close` ends the pool without waiting for it).
        await pg?.destroy();
        await running.close();
      });

      it("login - a client retrying every 2 s through a 10 s database outage signs in within 2 s of recovery; every failure is DATABASE_FAILURE", async () => {
        pg = await startPostgresServer();
        const env = {
          AUTH_SECRET: "outage-secret-nTQ4bwqv0Zc1dhm8Xk2R7yPpLa5sEoG3uJfWiHYV9Bz",
          DATABASE_URL: pg.url,
        };
        const baseUrl = await running.start(env, withRedis);
        const outcome = await retryThroughOutage(baseUrl, "pg@example.test", pg);
        console.info(`postgres outage, ${where}`, outcome);
        expect(outcome.failures.length).toBeGreaterThanOrEqual(4);
        expect(new Set(outcome.failures)).toEqual(new Set(["500 DATABASE_FAILURE"]));
        // The pool connects on demand: the first attempt after the restart (so within 2 s of it)
        // signs in; its answer comes after the time the request itself takes (reconnecting).
        expect(outcome.lastFailureMs).toBeLessThan(0);
        expect(outcome.recoveryMs).toBeLessThanOrEqual(RETRY_MS + REQUEST_MS);
      }, 60_000);
    },
  );
}

describe.skipIf(!canStartRedis)("example: express + redis outage recovery", () => {
  const running = new OutageExample();
  afterAll(() => running.close());

  it("login - a client retrying every 2 s through a 10 s Redis outage signs in within 2 s of recovery; every failure is EMAIL_COOLDOWN_CACHE_FAILURE", async () => {
    const baseUrl = await running.start({
      AUTH_SECRET: "outage-secret-Gm3TkqZ8vW1nXe5RbY0aLc7PjHsD2uFi9oVwNQ4tKyE",
    });
    const store = { stop: () => running.stopRedis(), start: () => running.startRedis() };
    const { failures, recoveryMs, lastFailureMs, attemptsFromRecoveryMs } = await retryThroughOutage(
      baseUrl,
      "redis@example.test",
      store,
    );
    console.info("redis outage", { failures, recoveryMs, lastFailureMs, attemptsFromRecoveryMs });
    expect(failures.length).toBeGreaterThanOrEqual(4);
    expect(new Set(failures)).toEqual(new Set(["500 EMAIL_COOLDOWN_CACHE_FAILURE"]));
    // ioredis reconnects within 250 ms of the server being back (createRedisClient's retry
    // strategy): an attempt in that time may still fail, the next one (2 s later) signs in, so the
    // client signs in within 2 s of recovery, as with PostgreSQL, plus the request's own time.
    expect(lastFailureMs).toBeLessThan(REDIS_RECONNECT_MS);
    expect(recoveryMs).toBeLessThanOrEqual(RETRY_MS + REQUEST_MS);
  }, 60_000);
});
