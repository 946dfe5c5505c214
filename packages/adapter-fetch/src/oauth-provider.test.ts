import { createOAuthProvider } from "@portcullis/oauth-provider";
import { createMemoryStores } from "@portcullis/store-memory";
import { runOAuthProviderAdapterSuite } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runOAuthProviderAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  oauthProvider: (setup) => createOAuthProvider(setup),
  start: (auth) => listenForTests(createTestApp(auth)),
  // No `startBehindFormParser`: Hono parses no body unless a route asks, and a middleware that
  // calls `c.req.parseBody()` first leaves `c.req.raw` unusable: the handler answers 500 and logs
  // why (fetch.test.ts in the core), so the Fetch handler goes before any body parser.
});
