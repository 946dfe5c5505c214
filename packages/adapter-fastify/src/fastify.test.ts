import { createMemoryStores } from "@portcullis/store-memory";
import {
  runAdapterSuite,
  runApiKeysAdapterSuite,
  runOrganizationsAdapterSuite,
  runWebhooksAdapterSuite,
} from "@portcullis/testing";
import { startForTests } from "./test-server.js";

runAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startForTests,
});
runOrganizationsAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startForTests,
});
runApiKeysAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startForTests,
});

runWebhooksAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start: startForTests,
});
