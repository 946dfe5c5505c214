import { httpHandlerFor } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { runScimAdapterSuite, serveHandlerForTests } from "@portcullis/testing";
import { createSso } from "./create-sso.js";

// SCIM 2.0 per connection (the adapter suite's SCIM area) on memory stores, through the core's
// own node handler: no adapter between the requests and the plugin's routes.

runScimAdapterSuite({
  name: "core handler",
  createStores: (clock) => createMemoryStores({ clock }),
  sso: (setup) => createSso(setup),
  start: (auth) => {
    const handler = httpHandlerFor(auth);
    return serveHandlerForTests(() => handler);
  },
});
