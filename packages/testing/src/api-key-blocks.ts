// A key's requests per minute counted in blocks (docs/api-keys.md, "Counted in blocks") over two
// instances of one app: two auths, each with its own HTTP server and its own stores (own client or
// pool) over one shared backend, under many concurrent requests.
import type { Auth, AuthStores, Clock } from "@portcullis/core";
import { describe, expect, it } from "vitest";
import { registerWithKey, rewritten, startKeyInstance } from "./adapter-suite/api-keys-fixture.js";
import { expectCode, type StartedServer } from "./adapter-suite/fixture.js";
import { createFakeClock } from "./fake-clock.js";
import type { HttpClient, HttpReply } from "./http-client.js";

/** The stores one instance is built with. */
export type InstanceStores = Omit<AuthStores, "identities">;

export interface ApiKeyBlocksSuiteOptions {
  /** Shown in the describe block, e.g. "express + redis". */
  name: string;
  /** Mounts the auth routes of `auth` and `GET /host/protected` behind requireAuth (as the adapter suite's `start`). */
  start(auth: Auth): Promise<StartedServer>;
  /**
   * The stores of two instances, fresh for each test: each over a client or pool of its own, both
   * over the same data (one Redis key prefix, one set of tables). Users may be shared in memory.
   */
  createInstanceStores(clock: Clock): Promise<[InstanceStores, InstanceStores]>;
}

/**
 * The largest block an instance takes for a key of `limit` requests a minute, by the rule of the
 * core's `createLeases` (packages/core/src/api-keys/leases.ts): a twentieth of the limit, at least
 * 1, at most 1,000.
 */
export function largestBlock(limit: number): number {
  return Math.max(1, Math.min(1_000, Math.floor(limit / 20)));
}

/** One instance: its HTTP client, and the `useApiKey` calls its store got that counted (uses > 0). */
interface Instance {
  http: HttpClient;
  counted: { calls: number };
  /** Waits for the instance's background work (a refused request's count given back to the store). */
  idle(): Promise<void>;
}

/** Two auths over `createInstanceStores`, one fake clock (tick 1), a key's limit of `limit`. */
async function twoInstances(options: ApiKeyBlocksSuiteOptions, limit: number) {
  const clock = createFakeClock({ tick: 1 });
  const stores = await options.createInstanceStores(clock);
  const make = async (own: InstanceStores): Promise<Instance> => {
    const counted = { calls: 0 };
    const apiKeys = own.apiKeys;
    if (apiKeys === undefined) throw new Error("runApiKeyBlocksSuite: the stores have no apiKeys");
    const useApiKey: typeof apiKeys.useApiKey = (lookupId, windowMs, uses) => {
      if (uses > 0) counted.calls++;
      return apiKeys.useApiKey(lookupId, windowMs, uses);
    };
    const stores = { ...own, apiKeys: { ...apiKeys, useApiKey } };
    const { auth, http } = await startKeyInstance(options.start, stores, clock, limit);
    return { http, counted, idle: () => auth.idle() };
  };
  const [a, b] = await Promise.all(stores.map(make));
  if (a === undefined || b === undefined) throw new Error("runApiKeyBlocksSuite: two stores expected");
  return { a, b, clock };
}

const hostCall = (instance: Instance, key: string) =>
  instance.http.call("GET", "/host/protected", { headers: { "x-api-key": key } });

/** `total` requests made by `call(index)`, in waves of `wave` fired at once: every reply, in order. */
async function inWaves(
  total: number,
  wave: number,
  call: (index: number) => Promise<HttpReply>,
): Promise<HttpReply[]> {
  const replies: HttpReply[] = [];
  for (let start = 0; start < total; start += wave) {
    const size = Math.min(wave, total - start);
    replies.push(...(await Promise.all(Array.from({ length: size }, (_, offset) => call(start + offset)))));
  }
  return replies;
}

/** Checks that every reply is 200 or 429 API_KEY_RATE_LIMITED with a Retry-After of 1-60 s; the 200s. */
function allowedOrLimited(replies: HttpReply[]): number {
  let allowed = 0;
  for (const reply of replies) {
    if (reply.status === 200) {
      allowed++;
      continue;
    }
    expectCode(reply, 429, "API_KEY_RATE_LIMITED");
    expect(Number(reply.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  }
  return allowed;
}

/** Expects `allowed` within [limit − 2 × the largest block, limit] (two instances, each holding one block's rest). */
function expectAllowance(allowed: number, limit: number): void {
  expect(allowed).toBeLessThanOrEqual(limit);
  expect(allowed).toBeGreaterThanOrEqual(limit - 2 * largestBlock(limit));
}

/** The burst shapes of the limit test: the key's limit, the requests, how many are fired at once. */
const BURSTS = [
  { limit: 100, total: 400, wave: 50 },
  { limit: 100, total: 400, wave: 6 },
  { limit: 400, total: 600, wave: 100 },
];

export function runApiKeyBlocksSuite(options: ApiKeyBlocksSuiteOptions): void {
  describe(`api key blocks on two instances: ${options.name}`, () => {
    for (const { limit, total, wave } of BURSTS) {
      const low = limit - 2 * largestBlock(limit);
      it(`requireAuth - ${total} requests in waves of ${wave} over two instances, limit ${limit}: ${low}-${limit} answered 200, the rest 429 with Retry-After`, async () => {
        const { a, b } = await twoInstances(options, limit);
        const { key } = await registerWithKey(a.http, "burst@example.test", "Burst");
        const replies = await inWaves(total, wave, (index) => hostCall(index % 2 === 0 ? a : b, key));
        const allowed = allowedOrLimited(replies);
        const writes = a.counted.calls + b.counted.calls;
        console.info(
          `[api key blocks] ${options.name}: limit ${limit}, ${total} requests in waves of ${wave}: ${allowed} allowed, ${writes} counting store calls`,
        );
        expectAllowance(allowed, limit);
        // Fewer counting store calls than requests: counts handed out from blocks, and the requests
        // after the window's counts are used up answered without a write.
        expect(writes).toBeLessThan(Math.min(total, limit + wave));
        expectCode(await hostCall(b, key), 429, "API_KEY_RATE_LIMITED");
        expectCode(await hostCall(a, key), 429, "API_KEY_RATE_LIMITED");
      });
    }
    deletionTests(options);
    wrongSecretTests(options);
  });
}

/** The deletion test's key limit: high enough that the burst never meets it, blocks of 300. */
const ROOMY = 6_000;

/** One request of a burst: whether it started after the delete's answer came, and its reply. */
interface BurstCall {
  afterDelete: boolean;
  instance: "a" | "b";
  reply: HttpReply;
}

function deletionTests(options: ApiKeyBlocksSuiteOptions): void {
  it("DELETE /api-keys/:id - through instance A in the middle of a burst on both: every request that starts after its answer is 401 API_KEY_INVALID on both", async () => {
    const { a, b } = await twoInstances(options, ROOMY);
    const { key, id, bearer } = await registerWithKey(a.http, "deleted@example.test", "Deleted");
    // B holds a block: its next requests read the key without counting in the store.
    for (let index = 0; index < 10; index++) expect((await hostCall(b, key)).status).toBe(200);
    const state = { deleted: false, okBefore: 0 };
    const calls: BurstCall[] = [];
    const worker = async (instance: Instance, name: "a" | "b") => {
      let after = 0;
      while (after < 8) {
        const afterDelete = state.deleted;
        const reply = await hostCall(instance, key);
        calls.push({ afterDelete, instance: name, reply });
        if (afterDelete) after++;
        else if (reply.status === 200) state.okBefore++;
      }
    };
    const deleter = async () => {
      // After 100 allowed (or 400 answers of any kind, so that a key refused too early fails below, not by a timeout).
      while (state.okBefore < 100 && calls.length < 400)
        await new Promise((resolve) => setTimeout(resolve, 2));
      const deleted = await a.http.call("DELETE", `/api/auth/api-keys/${id}`, { bearer });
      expect(deleted.status, deleted.text).toBe(200);
      state.deleted = true;
    };
    const workers = Array.from({ length: 16 }, (_, index) =>
      index % 2 === 0 ? worker(a, "a") : worker(b, "b"),
    );
    await Promise.all([...workers, deleter()]);
    const after = calls.filter((call) => call.afterDelete);
    console.info(
      `[api key blocks] ${options.name}: deletion mid-burst: ${calls.length - after.length} requests before the delete's answer (${state.okBefore} allowed), ${after.length} after (A ${after.filter((call) => call.instance === "a").length}, B ${after.filter((call) => call.instance === "b").length}), B's counting store calls ${b.counted.calls}`,
    );
    expect(after.length).toBe(16 * 8);
    for (const call of after) expectCode(call.reply, 401, "API_KEY_INVALID");
    // Before the delete's answer: served, or already refused (the delete had been applied).
    for (const call of calls) expect([200, 401]).toContain(call.reply.status);
    expectCode(await hostCall(b, key), 401, "API_KEY_INVALID");
    expectCode(await hostCall(a, key), 401, "API_KEY_INVALID");
  });

  it("DELETE /api-keys/:id - instance B, holding counts of a block, refuses the key on its very next request", async () => {
    const { a, b } = await twoInstances(options, ROOMY);
    const { key, id, bearer } = await registerWithKey(a.http, "next@example.test", "Next");
    for (let index = 0; index < 20; index++) expect((await hostCall(b, key)).status).toBe(200);
    const countedBefore = b.counted.calls;
    expect(countedBefore).toBeLessThan(20);
    const deleted = await a.http.call("DELETE", `/api/auth/api-keys/${id}`, { bearer });
    expect(deleted.status, deleted.text).toBe(200);
    expectCode(await hostCall(b, key), 401, "API_KEY_INVALID");
    expectCode(await hostCall(a, key), 401, "API_KEY_INVALID");
  });
}

/** The wrong-secret tests' key limit. */
const LIMITED = 100;

function wrongSecretTests(options: ApiKeyBlocksSuiteOptions): void {
  it(`requireAuth - wrong secrets of the key's lookup id among its requests on both instances use none of its ${LIMITED} a minute`, async () => {
    const { a, b, clock } = await twoInstances(options, LIMITED);
    const { key } = await registerWithKey(a.http, "wrong@example.test", "Wrong");
    // 8 waves of 50: on each instance, wrong secrets (same lookup id) and the key, alternating.
    const mixed = await inWaves(400, 50, (index) => {
      const instance = index % 2 === 0 ? a : b;
      return hostCall(instance, index % 4 < 2 ? rewritten(key, 20 + (index % 23)) : key);
    });
    const wrong = mixed.filter((_, index) => index % 4 < 2);
    for (const reply of wrong) expectCode(reply, 401, "API_KEY_INVALID");
    // Then the key alone on both: the counts the wrong secrets gave back serve it, once the
    // give-backs to the store have landed (they run after the answers).
    await Promise.all([a.idle(), b.idle()]);
    // An instance that saw the limit reached asks the store again a second later (leases.ts).
    clock.advance(1_000);
    const drain = await inWaves(100, 50, (index) => hostCall(index % 2 === 0 ? a : b, key));
    const allowed = allowedOrLimited([...mixed.filter((_, index) => index % 4 >= 2), ...drain]);
    console.info(
      `[api key blocks] ${options.name}: 200 wrong secrets among 200 valid requests, then 100 valid: ${allowed} allowed of ${LIMITED}`,
    );
    expectAllowance(allowed, LIMITED);
  });
  it(`requireAuth - wrong secrets sent to instance A only leave instance B the key's ${LIMITED} a minute, less A's one block at most`, async () => {
    const { a, b } = await twoInstances(options, LIMITED);
    const { key } = await registerWithKey(a.http, "wrong-a@example.test", "Wrong A");
    const wrong = await inWaves(200, 50, (index) => hostCall(a, rewritten(key, 20 + (index % 23))));
    for (const reply of wrong) expectCode(reply, 401, "API_KEY_INVALID");
    await a.idle(); // the give-backs run after the answers
    // A keeps a block's worth of the refused counts to hand out itself; the rest went back to the store.
    const onB = allowedOrLimited(await inWaves(200, 50, () => hostCall(b, key)));
    console.info(
      `[api key blocks] ${options.name}: 200 wrong secrets on A, then 200 valid on B: ${onB} allowed on B`,
    );
    expect(onB).toBeGreaterThanOrEqual(LIMITED - largestBlock(LIMITED));
    expect(onB).toBeLessThanOrEqual(LIMITED);
  });
}
