import { createMemoryStores } from "@portcullis/store-memory";
import { runTrustedBrowsersAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runTrustedBrowsersAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});
