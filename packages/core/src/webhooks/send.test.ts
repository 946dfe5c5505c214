import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  createWebhookAgents,
  MAX_ANSWER_BYTES,
  sendWebhook,
  WEBHOOK_RESOLVED_FOR_MS,
  WEBHOOK_USER_AGENT,
} from "./send.js";

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A receiver on 127.0.0.1 answering with `answer`; what it received, how many connections, and its port. */
async function receiver(answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const received: Received[] = [];
  const connections = { opened: 0 };
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push({ method: request.method, url: request.url, headers: request.headers, body });
      answer(request, response);
    });
  });
  server.on("connection", () => {
    connections.opened += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { received, connections, port, url: `http://127.0.0.1:${port}` };
}

const signature = { "webhook-id": "e1", "webhook-timestamp": "1", "webhook-signature": "v1,abc" };
const body = '{"type":"login.succeeded"}';
const send = (url: string, timeoutMs = 2_000) =>
  sendWebhook({ url, body, headers: signature, timeoutMs, allowPrivateNetworks: true });

describe("sendWebhook", () => {
  it("sendWebhook - POSTs the JSON with its headers; a 2xx is ok", async () => {
    const target = await receiver((_request, response) => response.writeHead(204).end());
    expect(await send(`${target.url}/hooks?x=1`)).toEqual({ ok: true, statusCode: 204, error: null });
    const [request] = target.received;
    expect(request).toMatchObject({ method: "POST", url: "/hooks?x=1", body });
    expect(request?.headers).toMatchObject({
      ...signature,
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      host: `127.0.0.1:${target.port}`,
    });
  });

  it("sendWebhook - a 500 is not ok", async () => {
    const target = await receiver((_request, response) => response.writeHead(500).end("oops"));
    expect(await send(target.url)).toEqual({ ok: false, statusCode: 500, error: "status 500" });
  });

  it("sendWebhook - a redirect is not followed and fails", async () => {
    const target = await receiver((request, response) => {
      if (request.url === "/moved") response.writeHead(200).end();
      else response.writeHead(302, { location: "/moved" }).end();
    });
    expect(await send(`${target.url}/hook`)).toEqual({
      ok: false,
      statusCode: 302,
      error: "redirect 302 not followed",
    });
    expect(target.received.map((request) => request.url)).toEqual(["/hook"]);
  });

  it("sendWebhook - a receiver that does not answer in time fails with timed out", async () => {
    const target = await receiver(() => {});
    const started = performance.now();
    expect(await send(target.url, 200)).toEqual({ ok: false, statusCode: null, error: "timed out" });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("sendWebhook - an answer that never ends is cut after 64 KiB", async () => {
    let written = 0;
    let closed = false;
    const target = await receiver((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, "x");
      const pump = () => {
        while (!closed && written < 100 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return;
        }
      };
      response.on("drain", pump);
      response.on("close", () => {
        closed = true;
      });
      pump();
    });
    expect(await send(target.url, 5_000)).toEqual({ ok: true, statusCode: 200, error: null });
    await expect.poll(() => closed).toBe(true);
    expect(written).toBeGreaterThanOrEqual(MAX_ANSWER_BYTES);
    expect(written).toBeLessThan(100 * 1024 * 1024);
  });

  it("sendWebhook - connects only to the checked address, keeping the URL's Host", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const lookups: string[] = [];
    const result = await sendWebhook({
      url: `http://hooks.test:${target.port}/x`,
      body,
      headers: signature,
      timeoutMs: 2_000,
      allowPrivateNetworks: true,
      lookup: async (host) => {
        lookups.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    expect(result).toEqual({ ok: true, statusCode: 200, error: null });
    expect(lookups).toEqual(["hooks.test"]);
    expect(target.received[0]?.headers.host).toBe(`hooks.test:${target.port}`);
  });

  it("sendWebhook - a blocked address is never connected to; a closed port is refused", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const strict = { body, headers: signature, timeoutMs: 2_000, allowPrivateNetworks: false };
    expect(await sendWebhook({ ...strict, url: target.url })).toEqual({
      ok: false,
      statusCode: null,
      error: "not https",
    });
    expect(await sendWebhook({ ...strict, url: `https://127.0.0.1:${target.port}` })).toEqual({
      ok: false,
      statusCode: null,
      error: "blocked address 127.0.0.1",
    });
    const rebinding = await sendWebhook({
      ...strict,
      url: `https://rebind.test:${target.port}`,
      lookup: async () => [{ address: "10.0.0.1", family: 4 }],
    });
    expect(rebinding).toEqual({ ok: false, statusCode: null, error: "blocked address 10.0.0.1" });
    expect(target.received).toHaveLength(0);
    const closed = await receiver(() => {});
    servers.pop()?.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await send(closed.url)).toEqual({ ok: false, statusCode: null, error: "connection refused" });
  });

  it("sendWebhook - with agents, sends to one receiver reuse one connection and one checked resolution; another URL is checked first", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    const agents = createWebhookAgents();
    const lookups: string[] = [];
    const viaName = {
      url: `http://hooks.test:${target.port}/x`,
      body,
      headers: signature,
      timeoutMs: 2_000,
      agents,
      lookup: async (host: string) => {
        lookups.push(host);
        return [{ address: "127.0.0.1", family: 4 as const }];
      },
    };
    try {
      const ok = { ok: true, statusCode: 200, error: null };
      expect(await sendWebhook({ ...viaName, allowPrivateNetworks: true })).toEqual(ok);
      expect(await sendWebhook({ ...viaName, allowPrivateNetworks: true })).toEqual(ok);
      expect(await sendWebhook({ ...viaName, allowPrivateNetworks: true })).toEqual(ok);
      expect(target.received).toHaveLength(3);
      expect(target.connections.opened).toBe(1);
      expect(lookups).toEqual(["hooks.test"]);
      // The same host under the public rules, now resolving to a blocked address: refused before the kept connection is used.
      const rebinding = await sendWebhook({
        ...viaName,
        url: `https://hooks.test:${target.port}/x`,
        allowPrivateNetworks: false,
        lookup: async () => [{ address: "10.0.0.1", family: 4 }],
      });
      expect(rebinding).toEqual({ ok: false, statusCode: null, error: "blocked address 10.0.0.1" });
      expect(await sendWebhook({ ...viaName, url: target.url, allowPrivateNetworks: false })).toEqual({
        ok: false,
        statusCode: null,
        error: "not https",
      });
      expect(target.received).toHaveLength(3);
      expect(target.connections.opened).toBe(1);
    } finally {
      agents.http.destroy();
      agents.https.destroy();
    }
  });

  it("sendWebhook - with agents, a URL's approved addresses serve it for WEBHOOK_RESOLVED_FOR_MS, then it is resolved again; refusals and failures are not kept", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    let now = 0;
    const agents = createWebhookAgents(() => now);
    const lookups: string[] = [];
    let answer: () => { address: string; family: number }[] = () => [{ address: "127.0.0.1", family: 4 }];
    const input = (url: string, allowPrivateNetworks: boolean) => ({
      url,
      body,
      headers: signature,
      timeoutMs: 2_000,
      allowPrivateNetworks,
      agents,
      lookup: async (host: string) => {
        lookups.push(host);
        return answer();
      },
    });
    const named = input(`http://hooks.test:${target.port}/x`, true);
    const ok = { ok: true, statusCode: 200, error: null };
    try {
      // Three sends at once share one resolution.
      expect(await Promise.all([sendWebhook(named), sendWebhook(named), sendWebhook(named)])).toEqual([
        ok,
        ok,
        ok,
      ]);
      expect(lookups).toHaveLength(1);
      now += WEBHOOK_RESOLVED_FOR_MS - 1;
      expect(await sendWebhook(named)).toEqual(ok);
      expect(lookups).toHaveLength(1);
      now += 1;
      expect(await sendWebhook(named)).toEqual(ok);
      expect(lookups).toHaveLength(2);
      // A failed resolution is tried again by the next send.
      now += WEBHOOK_RESOLVED_FOR_MS;
      answer = () => {
        throw new Error("SERVFAIL");
      };
      const notFound = { ok: false, statusCode: null, error: "host not found" };
      expect(await sendWebhook(named)).toEqual(notFound);
      expect(await sendWebhook(named)).toEqual(notFound);
      expect(lookups).toHaveLength(4);
      // A refused answer too: each send checks again.
      answer = () => [{ address: "10.0.0.1", family: 4 }];
      const strict = input(`https://hooks.test:${target.port}/x`, false);
      const blocked = { ok: false, statusCode: null, error: "blocked address 10.0.0.1" };
      expect(await sendWebhook(strict)).toEqual(blocked);
      expect(await sendWebhook(strict)).toEqual(blocked);
      expect(lookups).toHaveLength(6);
      expect(target.received).toHaveLength(5);
    } finally {
      agents.http.destroy();
      agents.https.destroy();
    }
  });

  it("sendWebhook - without agents, each send opens its own connection", async () => {
    const target = await receiver((_request, response) => response.writeHead(200).end());
    expect((await send(target.url)).ok).toBe(true);
    expect((await send(target.url)).ok).toBe(true);
    expect(target.connections.opened).toBe(2);
  });
});
