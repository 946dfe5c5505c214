import { createMemoryStores } from "@portcullis/store-memory";
import {
  type AdapterSuiteOptions,
  runAdapterSuite,
  runApiKeysAdapterSuite,
  runOrganizationsAdapterSuite,
} from "@portcullis/testing";
import Fastify from "fastify";
import { portcullis } from "./index.js";
import { addHostRoutes, listenForTests } from "./test-server.js";

const start: AdapterSuiteOptions["start"] = async (auth) => {
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  return listenForTests(addHostRoutes(app, auth));
};

runAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start,
});
runOrganizationsAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start,
});
runApiKeysAdapterSuite({
  name: "fastify",
  createStores: (clock) => createMemoryStores({ clock }),
  transcripts: true,
  start,
});
