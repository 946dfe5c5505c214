import type { ChildProcess } from "node:child_process";
import { createArgon2Hasher } from "@portcullis/core";
import { freePort } from "@portcullis/testing";
import { createExampleAuth, type ExampleAuth, readConfig } from "example-shared";
import { expect } from "vitest";
import {
  canStartRedis,
  startRedisServer,
  stopRedisServer,
} from "../../../packages/store-redis/src/test-redis.js";
import { startExample } from "./test-servers.js";

// Test support for the outage tests (outage-recovery, redis-freeze): the example app on a
// redis-server of the test's own, and the sign-up and login its clients repeat.

export { canStartRedis };

/** The password of every account the outage tests register. */
const PASSWORD = "correct horse battery staple";
const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Registers `email` (with `PASSWORD`) through the app's API and returns a login with the same
 * credentials, to repeat as a client would.
 */
export async function registerForLogin(baseUrl: string, email: string): Promise<() => Promise<Response>> {
  const credentials = JSON.stringify({ email, password: PASSWORD });
  const post = (path: string) =>
    fetch(`${baseUrl}/api/auth/${path}`, { method: "POST", headers: JSON_HEADERS, body: credentials });
  expect((await post("register")).status).toBe(200);
  return () => post("login");
}

/**
 * The example app with the test's own redis-server on a free port (`REDIS_URL`) unless told
 * otherwise, a cheap argon2id and no login alerts. `close` stops what `start` got to, in any state;
 * a test that stops and starts Redis itself sets `redis` to the running server.
 */
export class OutageExample {
  port = 0;
  redis: ChildProcess | undefined;
  example: ExampleAuth | undefined;
  app: Awaited<ReturnType<typeof startExample>> | undefined;

  /** Starts Redis (when `withRedis`) and the app with `env` added; returns the app's origin. */
  async start(env: Record<string, string>, withRedis = true): Promise<string> {
    this.port = await freePort();
    if (withRedis) this.redis = await startRedisServer(this.port);
    const redisUrl = withRedis ? { REDIS_URL: `redis://127.0.0.1:${this.port}` } : {};
    this.example = await createExampleAuth(readConfig({ ...env, ...redisUrl, LOGIN_ALERTS: "false" }), {
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    });
    this.app = await startExample(this.example);
    return this.app.baseUrl;
  }

  /** Stops Redis (resumed first, should a test have frozen it). */
  async stopRedis(): Promise<void> {
    this.redis?.kill("SIGCONT");
    if (this.redis) await stopRedisServer(this.redis);
    this.redis = undefined;
  }

  /** Starts Redis again on the same port. */
  async startRedis(): Promise<void> {
    this.redis = await startRedisServer(this.port);
  }

  /** Stops the app's server (once). */
  async closeApp(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }

  /** The app, then the example's stores, then Redis. */
  async close(): Promise<void> {
    await this.closeApp();
    this.example?.close();
    await this.stopRedis();
  }
}
