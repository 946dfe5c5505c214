import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import { expect } from "vitest";

/** A message the receiver took: its `webhook-id`, its parsed payload, and whether the signature held. */
export interface ReceivedWebhook {
  id: string;
  type: string;
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
  /** Whether `standardwebhooks` verified it against one of the receiver's secrets. */
  verified: boolean;
  /** When it arrived (ms, the machine's clock). */
  at: number;
}

/** A webhook receiver on 127.0.0.1 for tests (see `startWebhookReceiver`). */
export interface WebhookReceiver {
  /** The URL to register: `http://127.0.0.1:<port>/hook`. */
  url: string;
  /** Every message answered 2xx, in arrival order (a duplicate is kept each time). */
  received: ReceivedWebhook[];
  /** Every request, answered or not: its `webhook-id` and the status it got. */
  attempts: { id: string; status: number }[];
  /** The secrets a message may be signed with (`whsec_…`); set it once the endpoint exists. */
  secrets: string[];
  /** The status to answer (200 by default; 500 fails, 410 asks to be disabled). */
  status: number;
  /** Each answer waits this long first. Default 0. */
  delayMs: number;
  /** Stops listening, ending open connections: the receiver is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** The distinct ids received, and how many arrived more than once. */
  counts(): { distinct: number; duplicates: number };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const verifies = (secrets: string[], body: string, headers: Record<string, string>) =>
  secrets.some((secret) => {
    try {
      new Webhook(secret).verify(body, headers);
      return true;
    } catch {
      return false;
    }
  });

/**
 * Starts a webhook receiver on 127.0.0.1 (a free port, or `port`): `POST /hook` records the
 * message, checks its Standard Webhooks signature with the `standardwebhooks` package against
 * `secrets`, and answers `status` (after `delayMs`). A message whose signature does not verify
 * is answered 401 and not recorded as received. `stop` and `start` take it down and bring it back
 * on the same port. The caller stops it after the test.
 */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    attempts: [],
    secrets: [],
    status: 200,
    delayMs: 0,
    async stop() {
      const stopping = server;
      server = undefined;
      if (!stopping) return;
      await new Promise<void>((resolve) => {
        stopping.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    async start() {
      if (server) return;
      server = createServer((request, response) => {
        answer(request)
          .then((status) => response.writeHead(status).end())
          .catch(() => response.destroy());
      });
      server.keepAliveTimeout = 72_000;
      server.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      const listening = server;
      await new Promise<void>((resolve) => listening.listen(port, "127.0.0.1", resolve));
      port = (listening.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/hook`;
    },
    counts() {
      const seen = new Map<string, number>();
      for (const message of receiver.received) seen.set(message.id, (seen.get(message.id) ?? 0) + 1);
      return {
        distinct: seen.size,
        duplicates: [...seen.values()].reduce((sum, n) => sum + n - 1, 0),
      };
    },
  };
  const answer = async (request: IncomingMessage): Promise<number> => {
    const body = await bodyOf(request);
    const header = (name: string) => String(request.headers[name] ?? "");
    const headers = {
      "webhook-id": header("webhook-id"),
      "webhook-timestamp": header("webhook-timestamp"),
      "webhook-signature": header("webhook-signature"),
    };
    if (receiver.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, receiver.delayMs));
    if (request.method !== "POST" || request.url !== "/hook") return 404;
    const verified = verifies(receiver.secrets, body, headers);
    const status = verified ? receiver.status : 401;
    receiver.attempts.push({ id: headers["webhook-id"], status });
    if (status >= 200 && status < 300) {
      const payload = JSON.parse(body) as ReceivedWebhook["payload"];
      receiver.received.push({
        id: headers["webhook-id"],
        type: payload.type,
        payload,
        verified,
        at: Date.now(),
      });
    }
    return status;
  };
  await receiver.start();
  return receiver;
}

/**
 * A delivery as `GET …/webhooks/:endpointId/deliveries` lists it once its first attempt reached a
 * receiver that answered 200: `event`, one attempt, succeeded, nothing left to do (any id and times).
 */
export const deliveredOnceView = (event: string) => ({
  id: expect.stringMatching(/^[0-9a-f]{32}$/),
  event,
  attempts: 1,
  status: "succeeded",
  lastAttemptAt: expect.any(String),
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
  createdAt: expect.any(String),
  redelivery: false,
});
