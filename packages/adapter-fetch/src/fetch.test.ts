import { createMemoryStores } from "@portcullis/store-memory";
import { runTranscriptAdapterSuites } from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runTranscriptAdapterSuites({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(createTestApp(auth)),
});
