import { runWebhooksAdapterSuite } from "@portcullis/testing";
import { redisForFile } from "./test-redis.js";
import { redisStoresWithMemoryUsers, startExpress } from "./test-servers.js";

// Webhooks through Express with the endpoints, their deliveries and leases, the audit log, API
// keys and sessions on Redis; users and organizations in memory.
const createStores = redisStoresWithMemoryUsers(redisForFile());

runWebhooksAdapterSuite({ name: "express + redis", createStores, start: startExpress });
