import { createMemoryStores } from "@portcullis/store-memory";
import { runTranscriptAdapterSuites } from "@portcullis/testing";
import express from "express";
import { createAuthRouter } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

runTranscriptAdapterSuites({
  name: "express",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth)),
});
