// bench/webhook-engine.mjs's receiver (a child process): POST answered 200 at once, the body read
// and dropped, kept-alive connections; tells its port to the parent.
import { createServer } from "node:http";

const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => response.writeHead(200).end());
});
server.keepAliveTimeout = 72_000;
server.listen(0, "127.0.0.1", () => process.send?.(server.address().port));
