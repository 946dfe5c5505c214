import { createMemoryStores } from "@portcullis/store-memory";
import { runIdentityProviderAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { listenForTests } from "./test-server.js";

runIdentityProviderAdapterSuite({
  name: "express",
  createStores: () => createMemoryStores({ sweepIntervalMs: 0 }),
  listen: (auth, port) => listenForTests(express().use(createAuthRouter(auth)), port),
});
