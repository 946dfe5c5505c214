import { createMemoryStores } from "@portcullis/store-memory";
import {
  runAdapterSuite,
  runApiKeysAdapterSuite,
  runOrganizationsAdapterSuite,
  runWebhooksAdapterSuite,
} from "@portcullis/testing";
import { createTestApp, listenForTests } from "./test-server.js";

runAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(createTestApp(auth)),
});

runOrganizationsAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(createTestApp(auth)),
});

runApiKeysAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(createTestApp(auth)),
});

runWebhooksAdapterSuite({
  name: "fetch",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: (auth) => listenForTests(createTestApp(auth)),
});
