import { createSso } from "@portcullis/sso";
import { createMemoryStores } from "@portcullis/store-memory";
import { runScimAdapterSuite } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

// SCIM 2.0 per SSO connection through Express (its bodies are `application/scim+json`).
runScimAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  sso: (setup) => createSso(setup),
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});
