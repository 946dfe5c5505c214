import type { Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";
import { startExpress } from "./test-servers.js";

// Trusted browsers with sessions, tokens and cooldowns on Redis: the trusts are tokens in the
// user's index set, listed without being taken and deleted with the sessions.
const file = redisForFile();

const createStores = (clock: Clock) => ({
  users: createMemoryStores({ clock }).users,
  ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
});

runTrustedBrowsersAdapterSuite({ name: "express + redis", createStores, start: startExpress });
