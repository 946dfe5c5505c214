import { once } from "node:events";
import {
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  type HttpHandler,
  type HttpResponse,
  httpHandlerFor,
  silentLogger,
} from "@portcullis/core";
import { createMemoryUserStore } from "@portcullis/store-memory";
import { freePort } from "@portcullis/testing";
import type { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createRedisClient } from "./client.js";
import { createRedisStores } from "./redis-stores.js";
import { canStartRedis, startRedisServer, stopRedisServer } from "./test-redis.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

const JSON_HEADERS = { "content-type": "application/json" };
const PASSWORD = "correct horse battery staple";

/** An Auth with its cooldowns and sessions on Redis (users in memory); sent emails go to `sent`. */
const authOnRedis = (client: Redis, sent: EmailMessage[]) =>
  createAuth({
    secret: TEST_SECRET,
    stores: {
      users: createMemoryUserStore(),
      ...createRedisStores({ client, keyPrefix: "failure-test:", operationTimeoutMs: 2_000 }),
    },
    mailer: { send: async (message) => void sent.push(message) },
    appOrigin: "https://app.example.test",
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { loginAlerts: false },
  });

/** Sends JSON requests to the handler's auth routes: status, error code, body, and how long it took. */
const timedRequests =
  (handler: HttpHandler) =>
  async (method: string, path: string, init: { body?: unknown; bearer?: string } = {}) => {
    const started = Date.now();
    const response = (await handler.handle({
      method,
      url: `/api/auth${path}`,
      headers: { ...JSON_HEADERS, ...(init.bearer ? { authorization: `Bearer ${init.bearer}` } : {}) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })) as HttpResponse;
    return {
      status: response.status,
      code: response.headers["auth-error-code"],
      body: JSON.parse(response.body ?? "{}"),
      ms: Date.now() - started,
    };
  };

describe("store-redis when Redis goes away", () => {
  it.skipIf(!canStartRedis)(
    "requests fail closed with the contract's 500 codes within 1 s, and recover when Redis returns",
    async () => {
      const port = await freePort();
      let server = await startRedisServer(port);
      const client = createRedisClient(`redis://127.0.0.1:${port}`, {
        logger: silentLogger,
        commandTimeout: 2_000,
      });
      await once(client, "ready");
      const sent: EmailMessage[] = [];
      const request = timedRequests(httpHandlerFor(authOnRedis(client, sent)));
      const signIn = async () => {
        const login = await request("POST", "/login", {
          body: { email: "ada@example.test", password: PASSWORD },
        });
        expect(login.status).toBe(200);
        return { token: login.body.accessToken as string, refreshToken: login.body.refreshToken as string };
      };

      try {
        await request("POST", "/register", { body: { email: "ada@example.test", password: PASSWORD } });
        await expect.poll(() => sent.length).toBe(1); // the verification email of register
        const { token, refreshToken } = await signIn();
        expect((await request("GET", "/me", { bearer: token })).status).toBe(200);
        sent.length = 0;
        await stopRedisServer(server);
        const results = [
          [await request("GET", "/me", { bearer: token }), "ACCESS_TOKEN_ALLOWLIST_READING_FAILURE"],
          [
            await request("POST", "/password/reset-request", { body: { email: "ada@example.test" } }),
            "EMAIL_COOLDOWN_CACHE_FAILURE",
          ],
          [
            await request("POST", "/login", { body: { email: "ada@example.test", password: PASSWORD } }),
            "EMAIL_COOLDOWN_CACHE_FAILURE",
          ],
          [await request("POST", "/refresh", { bearer: refreshToken }), "DATABASE_FAILURE"],
        ] as const;
        for (const [result, code] of results) {
          expect(result.status).toBe(500);
          expect(result.code).toBe(code);
          expect(result.ms).toBeLessThan(1_000);
          expect(JSON.stringify(result.body)).not.toMatch(/ECONNREFUSED|Redis|stream/i);
        }
        expect(sent).toEqual([]);
        server = await startRedisServer(port);
        await expect.poll(() => client.status, { timeout: 5_000 }).toBe("ready");
        const { token: fresh } = await signIn();
        expect((await request("GET", "/me", { bearer: fresh })).status).toBe(200);
        expect(
          (await request("POST", "/password/reset-request", { body: { email: "ada@example.test" } })).status,
        ).toBe(200);
        expect(sent).toHaveLength(1);
      } finally {
        client.disconnect();
        await stopRedisServer(server);
      }
    },
    20_000,
  );
});
