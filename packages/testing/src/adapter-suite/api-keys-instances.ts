import { describe, expect, it } from "vitest";
import { createFakeClock } from "../fake-clock.js";
import type { HttpClient } from "../http-client.js";
import { registerWithKey, startKeyInstance } from "./api-keys-fixture.js";
import type { AdapterSuiteOptions } from "./fixture.js";
import { expectCode } from "./fixture.js";

const LIMIT = 5;

/** Two auths (two instances of one app) over the same stores, each behind its own server. */
async function twoInstances(options: Pick<AdapterSuiteOptions, "start" | "createStores">) {
  const clock = createFakeClock({ tick: 1 });
  const stores = options.createStores(clock);
  const make = () => startKeyInstance(options.start, stores, clock, LIMIT);
  return { a: await make(), b: await make() };
}

const hostCall = (http: HttpClient, key: string) =>
  http.call("GET", "/host/protected", { headers: { "x-api-key": key } });

/**
 * API keys across instances that share their stores: a key deleted through one
 * instance is refused by the other on its very next request (no instance keeps keys in memory),
 * and a key's requests per minute are counted across instances. `createStores` is called once
 * per test and shared by both; `start` mounts `GET /host/protected` behind requireAuth.
 */
export function runApiKeysInstancesSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores">,
): void {
  describe(`api keys on two instances: ${options.name}`, () => {
    it("DELETE /api-keys/:id - a key deleted through instance A is refused by instance B on its very next request", async () => {
      const { a, b } = await twoInstances(options);
      const { key, id, bearer } = await registerWithKey(a.http, "shared@example.test", "Shared");
      const used = await hostCall(b.http, key);
      expect(used.status, used.text).toBe(200);
      expect(used.body).toMatchObject({ sessionId: `api-key:${id}` });
      expect((await hostCall(a.http, key)).status).toBe(200);
      const deleted = await a.http.call("DELETE", `/api/auth/api-keys/${id}`, { bearer });
      expect(deleted.status, deleted.text).toBe(200);
      expectCode(await hostCall(b.http, key), 401, "API_KEY_INVALID");
      expectCode(await hostCall(a.http, key), 401, "API_KEY_INVALID");
    });

    it("requireAuth - a key's requests per minute are counted across instances", async () => {
      const { a, b } = await twoInstances(options);
      const { key } = await registerWithKey(a.http, "counted@example.test", "Shared");
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, index) => hostCall(index % 2 === 0 ? a.http : b.http, key)),
      );
      expect(replies.map((reply) => reply.status).sort()).toEqual([
        ...Array(LIMIT).fill(200),
        ...Array(12 - LIMIT).fill(429),
      ]);
      expectCode(await hostCall(b.http, key), 429, "API_KEY_RATE_LIMITED");
    });
  });
}
