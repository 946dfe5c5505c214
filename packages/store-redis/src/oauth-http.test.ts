import { createOAuthProvider } from "@portcullis/oauth-provider";
import { runOAuthProviderAdapterSuite } from "@portcullis/testing";
import { redisForFile } from "./test-redis.js";
import { redisStoresWithMemoryUsers, startExpress } from "./test-servers.js";

// The OAuth provider through Express with its clients, grants and consents, its signing keys, the
// codes (single-use tokens) and sessions on Redis; users and organizations in memory. The
// provider hands the store its own `now`, so the suite's fake clock needs no `storeNow`; 20
// concurrent redemptions of one code and 20 concurrent refreshes meet Redis's scripts here.
const createStores = redisStoresWithMemoryUsers(redisForFile());

runOAuthProviderAdapterSuite({
  name: "express + redis",
  createStores,
  oauthProvider: (setup) => createOAuthProvider(setup),
  start: startExpress,
});
