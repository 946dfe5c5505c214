import { createMemoryStores } from "@portcullis/store-memory";
import {
  runAdapterSuite,
  runApiKeysAdapterSuite,
  runOrganizationsAdapterSuite,
  runWebhooksAdapterSuite,
} from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});

runOrganizationsAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});

runApiKeysAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});

runWebhooksAdapterSuite({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});
