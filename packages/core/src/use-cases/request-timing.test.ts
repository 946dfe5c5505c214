import { createMemoryStores } from "@portcullis/store-memory";
import { runRequestTimingSuite } from "@portcullis/testing";

runRequestTimingSuite({
  name: "memory",
  createStores: (clock) => createMemoryStores({ clock, sweepIntervalMs: 0 }),
});
