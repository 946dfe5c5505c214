import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runWebhooksAdapterSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// Webhooks through Express with the endpoints, their deliveries and leases, the audit log, API
// keys and sessions on Redis; users and organizations in memory.
const file = redisForFile();

const createStores = (clock: Clock) => {
  const memory = createMemoryStores({ clock });
  return {
    users: memory.users,
    organizations: memory.organizations,
    ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
  };
};

runWebhooksAdapterSuite({ name: "express + redis", createStores, start: startExpress });
