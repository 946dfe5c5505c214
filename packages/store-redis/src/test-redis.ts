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
import { createRedisClient } from "./client.js";

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
 * A test file's Redis (`useRedis`) and one client of it (2 s command timeout), opened before the
 * file's tests and closed after them, with the keys under every prefix `prefix()` handed out deleted.
 */
export function redisForFile(): { readonly client: Redis; prefix(): string } {
  let redis: Awaited<ReturnType<typeof useRedis>> | undefined;
  let client: Redis | undefined;
  const prefixes: string[] = [];
  beforeAll(async () => {
    redis = await useRedis();
    client = createRedisClient(redis.url, { commandTimeout: 2_000 });
    await once(client, "ready");
  });
  afterAll(async () => {
    if (client) for (const prefix of prefixes) await deleteKeys(client, prefix);
    client?.disconnect();
    await redis?.stop();
  });
  return {
    get client() {
      if (!client) throw new Error("redisForFile: the client is opened in beforeAll");
      return client;
    },
    prefix() {
      const prefix = testPrefix();
      prefixes.push(prefix);
      return prefix;
    },
  };
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
