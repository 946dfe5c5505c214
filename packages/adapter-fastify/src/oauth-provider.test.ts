import { createOAuthProvider } from "@portcullis/oauth-provider";
import { createMemoryStores } from "@portcullis/store-memory";
import { runOAuthProviderAdapterSuite } from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";
import { addHostRoutes, listenForTests, startForTests } from "./test-server.js";

runOAuthProviderAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  oauthProvider: (setup) => createOAuthProvider(setup),
  start: startForTests,
  // The host parses forms app-wide, as @fastify/formbody would (not a dependency here): a parser
  // of `application/x-www-form-urlencoded` registered before the plugin.
  startBehindFormParser: async (auth) => {
    const app = Fastify({ forceCloseConnections: true });
    app.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string" },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    await app.register(portcullis, { auth });
    return listenForTests(addHostRoutes(app, auth));
  },
});
