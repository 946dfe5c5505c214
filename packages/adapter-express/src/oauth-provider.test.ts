import { createOAuthProvider } from "@portcullis/oauth-provider";
import { createMemoryStores } from "@portcullis/store-memory";
import { runOAuthProviderAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runOAuthProviderAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  oauthProvider: (setup) => createOAuthProvider(setup),
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
  // The host parses every form before any router: the core reads the token endpoint's parsed form.
  startBehindFormParser: (auth) =>
    listenForTests(addHostRoutes(express().use(express.urlencoded()).use(createAuthRouter(auth)), auth)),
});
