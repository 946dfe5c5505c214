import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { expect } from "vitest";
import { listenFake } from "./fake-server.js";

/** One request the fake range server received, as it came (for asserting on what left the process). */
export interface ReceivedRangeRequest {
  method: string;
  /** The request target as sent (path and any query). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Everything the request carried: request line, headers and body. */
  raw: string;
}

/** A k-anonymity range API on 127.0.0.1 for tests (no request leaves the machine). */
export interface FakeRangeServer {
  /** The `rangeUrl` to configure: `http://127.0.0.1:<port>/range`. */
  rangeUrl: string;
  /** Every request received, in order. */
  requests: ReceivedRangeRequest[];
  /** Each answer waits this long first (a slow API). Default 0. */
  delayMs: number;
  /** Answer every request with this status and no lines (a failing API); null (default) answers normally. */
  failStatus: number | null;
  /** How many padding lines (count 0) an `Add-Padding: true` request gets. Default 20. */
  paddingLines: number;
  /** Answer without `Content-Length`, in chunks (as a streamed or endless answer comes). Default false. */
  streamed: boolean;
  /** Stops listening: later requests are refused (an API that is down). */
  stop(): Promise<void>;
}

/** SHA-1 of `password`, upper-case hex, as a range API indexes it. */
export const sha1Hex = (password: string) =>
  createHash("sha1").update(password, "utf8").digest("hex").toUpperCase();

/** The corpus by SHA-1 prefix (5 hex): the suffixes of the breached passwords under it. */
function corpusOf(breached: readonly string[]): Map<string, string[]> {
  const corpus = new Map<string, string[]>();
  for (const password of breached) {
    const hash = sha1Hex(password);
    corpus.set(hash.slice(0, 5), [...(corpus.get(hash.slice(0, 5)) ?? []), hash.slice(5)]);
  }
  return corpus;
}

/** `request` as it came, its body read to the end. */
async function received(request: IncomingMessage): Promise<ReceivedRangeRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const head = Object.entries(request.headers).map(([name, value]) => `${name}: ${String(value)}`);
  return {
    method: request.method ?? "",
    url: request.url ?? "",
    headers: { ...request.headers },
    raw: [`${request.method} ${request.url}`, ...head, "", Buffer.concat(chunks).toString("utf8")].join("\n"),
  };
}

/** `n` padding lines (random suffixes, count 0), each followed by CRLF. */
const paddingOf = (n: number) =>
  (
    randomBytes(18 * n)
      .toString("hex")
      .toUpperCase()
      .match(/.{36}/g) ?? []
  )
    .map((hex) => `${hex.slice(0, 35)}:0\r\n`)
    .join("");

/** Resolves when `response` can take more (or has closed). */
const drained = (response: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.on("drain", done);
    response.on("close", done);
  });

/** The answer without `Content-Length`: the lines, then `padding` padding lines in chunks of 1000. */
async function writeStreamed(response: ServerResponse, lines: string[], padding: number): Promise<void> {
  response.writeHead(200, { "content-type": "text/plain" });
  response.write(lines.map((line) => `${line}\r\n`).join(""));
  for (let left = padding; left > 0 && !response.destroyed; left -= 1000) {
    if (!response.write(paddingOf(Math.min(left, 1000)))) await drained(response);
  }
  response.end();
}

/**
 * Starts a fake range API that knows `breached` (each counted `count` times): `GET
 * /range/<5 hex>` answers the suffixes of the corpus under that prefix as `SUFFIX:COUNT` lines and,
 * when the request says `Add-Padding: true`, random padding suffixes with count 0 (so a client that
 * reads padding as a match would refuse passwords outside the corpus). Stopped after the test by
 * the caller (`stop`).
 */
export async function startFakeRangeServer(
  breached: readonly string[],
  { count = 42 }: { count?: number } = {},
): Promise<FakeRangeServer> {
  const corpus = corpusOf(breached);
  const fake: FakeRangeServer = {
    rangeUrl: "",
    requests: [],
    delayMs: 0,
    failStatus: null,
    paddingLines: 20,
    streamed: false,
    stop: async () => undefined,
  };
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    fake.requests.push(await received(request));
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    if (response.destroyed) return;
    const match = /^\/range\/([0-9A-F]{5})$/.exec(request.url ?? "");
    if (fake.failStatus !== null || !match) {
      response.writeHead(fake.failStatus ?? 404).end();
      return;
    }
    const lines = (corpus.get(match[1] as string) ?? []).map((suffix) => `${suffix}:${count}`);
    const padding = request.headers["add-padding"] === "true" ? fake.paddingLines : 0;
    if (fake.streamed) return writeStreamed(response, lines, padding);
    const text = `${lines.map((line) => `${line}\r\n`).join("")}${paddingOf(padding)}`;
    response.writeHead(200, { "content-type": "text/plain" }).end(text.slice(0, -2));
  };
  const listening = await listenFake(answer);
  fake.rangeUrl = `${listening.origin}/range`;
  fake.stop = listening.stop;
  return fake;
}

/**
 * What left the process for `passwords`: each request a GET of `/range/<5 hex>` with
 * `Add-Padding: true`, carrying neither a password nor more than the 5 characters of its SHA-1.
 */
export function expectOnlyPrefixes(api: FakeRangeServer, passwords: string[]): void {
  expect(api.requests.length).toBeGreaterThan(0);
  for (const request of api.requests) {
    expect(request.method).toBe("GET");
    expect(request.url).toMatch(/^\/range\/[0-9A-F]{5}$/);
    expect(request.headers["add-padding"]).toBe("true");
    for (const password of passwords) {
      expect(request.raw).not.toContain(password);
      expect(request.raw.toUpperCase()).not.toContain(sha1Hex(password).slice(0, 6));
    }
  }
}
