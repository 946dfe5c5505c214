import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@portcullis/core";
import { freePort } from "@portcullis/testing";
import { type Cluster, Redis } from "ioredis";
import { afterAll, beforeAll } from "vitest";
import { createRedisClient, type RedisClientOptions } from "./client.js";

/** Test support (not part of the package's exports): find or start a Redis for the tests. */

const hasRedisServer = () => {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

export const canStartRedis = hasRedisServer();

/** A three-node Redis Cluster of the test's own (temporary folders, nothing kept); needs redis-server and redis-cli. */
export async function startRedisCluster(): Promise<{
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-cluster-"));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children = ports.map((port) =>
    spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        `nodes-${port}.conf`,
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    ),
  );
  const stop = async () => {
    await Promise.all(children.map((child) => stopRedisServer(child)));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const deadline = Date.now() + 5_000;
      while (!(await answers(`redis://127.0.0.1:${port}`))) {
        if (Date.now() > deadline) throw new Error(`cluster node ${port} did not start`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    execFileSync(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...ports.map((port) => `127.0.0.1:${port}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      {
        stdio: "ignore",
      },
    );
    const deadline = Date.now() + 10_000;
    while (
      !ports.every((port) =>
        execFileSync("redis-cli", ["-p", String(port), "cluster", "info"])
          .toString()
          .includes("cluster_state:ok"),
      )
    ) {
      if (Date.now() > deadline) throw new Error("cluster did not become ready");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes: ports.map((port) => ({ host: "127.0.0.1", port })), stop };
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A redis-server of the test's own on `port` (it keeps nothing on disk); resolves once it answers. */
export async function startRedisServer(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (await answers(`redis://127.0.0.1:${port}`)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill();
  throw new Error(`redis-server on port ${port} did not start`);
}

/** A redis-server that writes every command to its append-only file before answering, in `dir`. */
export async function startDurableRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes"],
    { stdio: "ignore" },
  );
  child.unref();
  const probe = createRedisClient(`redis://127.0.0.1:${port}`, { logger: silentLogger });
  try {
    const deadline = Date.now() + 5_000;
    while (probe.status !== "ready") {
      if (Date.now() > deadline) throw new Error("redis-server did not start");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await probe.config("SET", "appendfsync", "always");
  } finally {
    probe.disconnect();
  }
  return child;
}

export async function stopRedisServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/**
 * The Redis for the conformance tests: `REDIS_URL` when set, else one on 127.0.0.1:6379 that
 * answers, else a redis-server started here (stopped by `stop`). Tests use a unique key prefix
 * each and delete only their own keys: never a flush.
 */
export async function useRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, stop: async () => {} };
  if (await answers("redis://127.0.0.1:6379")) return { url: "redis://127.0.0.1:6379", stop: async () => {} };
  if (!canStartRedis)
    throw new Error("No Redis: set REDIS_URL, run one on 127.0.0.1:6379, or install redis-server");
  const port = await freePort();
  const child = await startRedisServer(port);
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopRedisServer(child) };
}

/**
 * The server's clock (`TIME`) in milliseconds, the clock its key expiries run on: the store
 * suites wait on it (the fixture's `now`) instead of sleeping on the test process's clock.
 */
export async function serverTime(client: Redis | Cluster): Promise<number> {
  const [seconds, micros] = await client.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

export const testPrefix = () => `portcullis-test:${randomUUID()}:`;

/**
 * A test file's (or describe block's) Redis (`useRedis`) and `count` clients of it (2 s command
 * timeout; `client` is the first), opened before its tests and closed after them, with the keys
 * under every prefix `prefix()` handed out deleted. `openClient` opens one more (ready) client
 * with `options`, closed after the tests too.
 */
export function redisForFile(count = 1): {
  readonly client: Redis;
  readonly clients: Redis[];
  readonly url: string;
  prefix(): string;
  openClient(options?: RedisClientOptions): Promise<Redis>;
} {
  let redis: Awaited<ReturnType<typeof useRedis>> | undefined;
  const clients: Redis[] = [];
  const opened: Redis[] = [];
  const prefixes: string[] = [];
  beforeAll(async () => {
    redis = await useRedis();
    const url = redis.url;
    clients.push(...Array.from({ length: count }, () => createRedisClient(url, { commandTimeout: 2_000 })));
    await Promise.all(clients.map((client) => once(client, "ready")));
  });
  afterAll(async () => {
    const [first] = clients;
    if (first) for (const prefix of prefixes) await deleteKeys(first, prefix);
    for (const client of [...clients, ...opened]) client.disconnect();
    await redis?.stop();
  });
  const found = () => {
    if (!redis) throw new Error("redisForFile: the Redis is found in beforeAll");
    return redis;
  };
  return {
    get client() {
      const [first] = clients;
      if (!first) throw new Error("redisForFile: the clients are opened in beforeAll");
      return first;
    },
    clients,
    get url() {
      return found().url;
    },
    prefix() {
      const prefix = testPrefix();
      prefixes.push(prefix);
      return prefix;
    },
    async openClient(options = {}) {
      const client = createRedisClient(found().url, options);
      opened.push(client);
      if (client.status !== "ready") await once(client, "ready");
      return client;
    },
  };
}

/** Keeps Redis busy for ARGV[1] µs (a script loops on TIME). */
const BUSY_SCRIPT = `local start = redis.call('TIME')
local from = start[1] * 1000000 + start[2]
repeat local now = redis.call('TIME') until now[1] * 1000000 + now[2] - from > tonumber(ARGV[1])`;

/**
 * `run` on a redis-server of the test's own (stopped after): `client`, whose commands time out
 * after 500 ms, and `busyFor(µs)`, which keeps Redis too busy to answer anyone for that long (a
 * script sent through another client) and resolves when it is done.
 */
export async function withRedisToKeepBusy(
  run: (redis: { client: Redis; busyFor(micros: number): Promise<unknown> }) => Promise<void>,
): Promise<void> {
  const port = await freePort();
  const server = await startRedisServer(port);
  const url = `redis://127.0.0.1:${port}`;
  const client = createRedisClient(url, { commandTimeout: 500, logger: silentLogger });
  const blocker = createRedisClient(url, { commandTimeout: 10_000, logger: silentLogger });
  try {
    await Promise.all([once(client, "ready"), once(blocker, "ready")]);
    await run({ client, busyFor: (micros) => blocker.eval(BUSY_SCRIPT, 0, micros) });
  } finally {
    client.disconnect();
    blocker.disconnect();
    await stopRedisServer(server);
  }
}

/** Every key under `prefix`, sorted (SCAN, tests only). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found.sort();
}

/** Deletes the keys under `prefix` (SCAN, test cleanup only). */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== "0");
}
