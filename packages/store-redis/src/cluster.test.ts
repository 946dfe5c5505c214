import {
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runApiKeyStoreSuite,
  runAuditLogStoreSuite,
  runCooldownStoreSuite,
  runOAuthStoreSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
  runSsoStoreSuite,
  runWebhookStoreSuite,
} from "@portcullis/testing";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { createRedisSsoStore } from "./sso-store.js";
import { canStartRedis, serverTime, startRedisCluster, testPrefix } from "./test-redis.js";

/** The same conformance suites on a real three-node Redis Cluster: every script stays on one slot. */
describe.skipIf(!canStartRedis)("store-redis on Redis Cluster", () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster(cluster.nodes, {
      enableOfflineQueue: false,
      redisOptions: { commandTimeout: 2_000 },
    });
    await new Promise((resolve) => client.once("ready", resolve));
  }, 30_000);
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  const fixture =
    <
      K extends
        | "cooldowns"
        | "sessions"
        | "allowlist"
        | "singleUseTokens"
        | "activity"
        | "apiKeys"
        | "auditLog"
        | "webhooks"
        | "oauth",
    >(
      kind: K,
    ) =>
    () => ({
      store: createRedisStores({ client, keyPrefix: testPrefix(), operationTimeoutMs: 2_000 })[kind],
      now: () => serverTime(client),
    });
  runCooldownStoreSuite({ name: "redis cluster", create: fixture("cooldowns") });
  runSessionStoreSuite({ name: "redis cluster", create: fixture("sessions") });
  runAccessTokenAllowlistSuite({
    name: "redis cluster",
    create: () => {
      const { allowlist, sessions, joint } = createRedisStores({
        client,
        keyPrefix: testPrefix(),
        operationTimeoutMs: 2_000,
      });
      return { store: allowlist, sessions, joint, now: () => serverTime(client) };
    },
  });
  runSingleUseTokenStoreSuite({ name: "redis cluster", create: fixture("singleUseTokens") });
  runActivityStoreSuite({ name: "redis cluster", create: fixture("activity") });
  runApiKeyStoreSuite({ name: "redis cluster", create: fixture("apiKeys") });
  runAuditLogStoreSuite({ name: "redis cluster", create: fixture("auditLog") });
  runWebhookStoreSuite({ name: "redis cluster", create: fixture("webhooks") });
  runOAuthStoreSuite({ name: "redis cluster", create: fixture("oauth") });
  runSsoStoreSuite({
    name: "redis cluster",
    create: () => ({
      store: createRedisSsoStore({ client, keyPrefix: testPrefix(), operationTimeoutMs: 2_000 }),
      now: () => serverTime(client),
    }),
  });
});
