import { runExampleSuite } from "example-shared/suite";
import { startExample } from "./test-servers.js";

runExampleSuite({
  name: "express",
  serverEntry: new URL("../dist/server.js", import.meta.url).pathname,
  start: startExample,
});
