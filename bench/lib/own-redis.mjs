// A redis-server of a benchmark's own (on a free loopback port, no persistence) and an ioredis
// client of store-redis on it, ready. `stop()` disconnects the client and kills the server.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { silentLogger } from "../../packages/core/dist/index.js";
import { createRedisClient } from "../../packages/store-redis/dist/index.js";

export async function startOwnRedis() {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const client = createRedisClient(`redis://127.0.0.1:${port}`, {
    logger: silentLogger,
    retryStrategy: (n) => (n > 50 ? null : 50),
  });
  await new Promise((resolve) => client.once("ready", resolve));
  const stop = () => {
    client.disconnect();
    server.kill("SIGKILL");
  };
  return { server, client, stop };
}
