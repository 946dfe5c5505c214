import { createMemoryStores } from "@portcullis/store-memory";
import { runTranscriptAdapterSuites } from "@portcullis/testing";
import { startForTests } from "./test-server.js";

runTranscriptAdapterSuites({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startForTests,
});
