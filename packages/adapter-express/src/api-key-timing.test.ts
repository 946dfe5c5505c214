import { createMemoryStores } from "@portcullis/store-memory";
import { runApiKeyTimingSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

// An unknown key, a wrong secret and a valid key in the same time, memory stores.
runApiKeyTimingSuite({
  name: "express + memory",
  createStores: (clock) => createMemoryStores({ clock, sweepIntervalMs: 0 }),
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});
