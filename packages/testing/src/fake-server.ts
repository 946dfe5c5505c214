import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A stand-in HTTP service on 127.0.0.1 (a free port) that answers every request with `answer`
 * (a request whose answer throws is cut off). `stop` ends open connections too, so a test never
 * waits for a kept-alive one.
 */
export async function listenFake(
  answer: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<{ origin: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy());
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
