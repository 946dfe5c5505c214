import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { createLru } from "../support/bounded-memo.js";
import {
  type AddressGuardOptions,
  type LookupAddresses,
  type ResolvedAddress,
  resolveWebhookTarget,
  type WebhookTarget,
} from "./address-guard.js";
import type { WebhookSignatureHeaders } from "./signing.js";

/** The most of a receiver's answer that is read (then the connection is dropped). */
export const MAX_ANSWER_BYTES = 64 * 1024;
export const WEBHOOK_USER_AGENT = "Portcullis-Webhooks";

/** How one attempt went: `ok` for a 2xx answer; `error` says why not in a few words (never a secret). */
export interface WebhookSendResult {
  ok: boolean;
  /** The receiver's HTTP status; null when it did not answer (refused, timed out, blocked). */
  statusCode: number | null;
  error: string | null;
}

/** The most connections kept to one receiver (host and port) at once, in use or idle. */
export const WEBHOOK_SOCKETS_PER_ORIGIN = 4;
/** How long an idle kept-alive connection stays open: under the 5 s after which many servers close theirs. */
export const WEBHOOK_IDLE_SOCKET_MS = 4_000;

/** How long the addresses checked for a URL serve its next sends before it is resolved again (ms). */
export const WEBHOOK_RESOLVED_FOR_MS = 5_000;
/** The most URLs whose checked addresses one engine keeps (the least recently sent to go first). */
const CHECKED_TARGETS_KEPT = 1_000;

/** The connections one engine keeps alive between sends, and the addresses checked for them (`createWebhookAgents`). */
export interface WebhookAgents {
  http: HttpAgent;
  https: HttpsAgent;
  /** `resolveWebhookTarget`, whose approved answer serves the same URL's sends for `WEBHOOK_RESOLVED_FOR_MS`. */
  resolve(url: string, guard: AddressGuardOptions): Promise<WebhookTarget>;
}

/**
 * Keep-alive agents for one engine: a connection to a receiver is reused by the next send to the
 * same host and port (at most `WEBHOOK_SOCKETS_PER_ORIGIN` of them, each closed after
 * `WEBHOOK_IDLE_SOCKET_MS` idle). The agents open a connection only through the `lookup` of the
 * send that needs it, which answers with the addresses the guard checked for that send: a reused
 * connection was opened to a checked address too.
 *
 * A URL's approved addresses serve its sends for `WEBHOOK_RESOLVED_FOR_MS` (`now`, a monotonic
 * clock in ms, tells when), then the name is resolved and checked again. Without that, every send
 * resolved the name through the system resolver, which runs on libuv's thread pool: while sign-ins
 * keep its threads hashing, each send waited behind every hash queued before it. A refused or
 * failed resolution is never kept. Destroy the agents when the engine stops.
 */
export function createWebhookAgents(now: () => number = () => performance.now()): WebhookAgents {
  const options = {
    keepAlive: true,
    maxSockets: WEBHOOK_SOCKETS_PER_ORIGIN,
    maxFreeSockets: WEBHOOK_SOCKETS_PER_ORIGIN,
    timeout: WEBHOOK_IDLE_SOCKET_MS,
    scheduling: "lifo" as const,
  };
  const checked = createLru<string, { target: Promise<WebhookTarget>; until: number }>(CHECKED_TARGETS_KEPT);
  const resolve = (url: string, guard: AddressGuardOptions) => {
    const key = `${guard.allowPrivateNetworks ? "any" : "public"} ${url}`;
    const at = now();
    const kept = checked.get(key);
    if (kept !== undefined && kept.until > at) return kept.target;
    // Sends that start while the name is being resolved share that one resolution.
    const target = resolveWebhookTarget(url, guard);
    checked.set(key, { target, until: at + WEBHOOK_RESOLVED_FOR_MS });
    void target.then((result) => {
      if (!result.ok && checked.get(key)?.target === target) checked.delete(key);
    });
    return target;
  };
  return { http: new HttpAgent(options), https: new HttpsAgent(options), resolve };
}

export interface WebhookSendInput {
  url: string;
  /** The JSON body. */
  body: string;
  /** The signature headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  headers: WebhookSignatureHeaders;
  /** How long the attempt may take in all: resolving, connecting, sending and reading the answer (ms). */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** How host names are resolved (tests inject one). Default: the system resolver. */
  lookup?: LookupAddresses | undefined;
  /** Connections kept alive between sends; without them, each send opens its own and closes it. */
  agents?: WebhookAgents | undefined;
}

/**
 * One attempt: checks the URL and every address its host resolves to (address-guard.ts; with
 * `agents`, an answer approved at most `WEBHOOK_RESOLVED_FOR_MS` ago), then POSTs the body to one
 * of those very addresses (the connection's own lookup returns them, so a DNS answer that changes
 * after the check cannot redirect it), keeping the URL's Host header and TLS server name.
 * Redirects are not followed (a 3xx fails), the answer is read up to 64 KiB, and the whole attempt
 * is cut at `timeoutMs`. Never rejects.
 */
export async function sendWebhook(input: WebhookSendInput): Promise<WebhookSendResult> {
  const started = performance.now();
  const guard = {
    allowPrivateNetworks: input.allowPrivateNetworks,
    lookup: input.lookup,
    lookupTimeoutMs: input.timeoutMs,
  };
  const target = await (input.agents === undefined
    ? resolveWebhookTarget(input.url, guard)
    : input.agents.resolve(input.url, guard));
  if (!target.ok) return { ok: false, statusCode: null, error: target.reason };
  const remaining = input.timeoutMs - (performance.now() - started);
  if (remaining <= 0) return { ok: false, statusCode: null, error: "timed out" };
  return post(target.url, target.addresses, input, remaining);
}

/** A `lookup` for `net.connect` that answers only with `addresses` (those the guard checked). */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((entry) => family === 0 || entry.family === family);
    const [first] = usable;
    if (!first) {
      const error: NodeJS.ErrnoException = new Error("no checked address of this family");
      error.code = "ENOTFOUND";
      callback(error, "", 0);
    } else if (options.all)
      callback(
        null,
        usable.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, first.address, first.family);
  };
}

function post(
  url: URL,
  addresses: readonly ResolvedAddress[],
  input: WebhookSendInput,
  timeoutMs: number,
): Promise<WebhookSendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: WebhookSendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const https = url.protocol === "https:";
    const send = https ? httpsRequest : httpRequest;
    const agent = input.agents === undefined ? false : https ? input.agents.https : input.agents.http;
    const request = send(
      url,
      {
        method: "POST",
        agent,
        lookup: pinnedLookup(addresses),
        headers: {
          ...input.headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(input.body)),
          "user-agent": WEBHOOK_USER_AGENT,
        },
      },
      (response) => readAnswer(response, finish),
    );
    request.on("error", (error) => finish({ ok: false, statusCode: null, error: describeError(error) }));
    const timer = setTimeout(() => finish({ ok: false, statusCode: null, error: "timed out" }), timeoutMs);
    timer.unref?.();
    request.end(input.body);
  });
}

/** Reads at most `MAX_ANSWER_BYTES` of the answer (dropping it), then settles on its status. */
function readAnswer(response: IncomingMessage, finish: (result: WebhookSendResult) => void): void {
  const statusCode = response.statusCode ?? null;
  const done = () => finish(outcome(statusCode));
  let received = 0;
  response.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received >= MAX_ANSWER_BYTES) done();
  });
  response.on("end", done);
  response.on("error", done);
  response.on("close", done);
}

function outcome(statusCode: number | null): WebhookSendResult {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300)
    return { ok: true, statusCode, error: null };
  if (statusCode !== null && statusCode >= 300 && statusCode < 400)
    return { ok: false, statusCode, error: `redirect ${statusCode} not followed` };
  return { ok: false, statusCode, error: `status ${statusCode ?? "unknown"}` };
}

const ERROR_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  ETIMEDOUT: "timed out",
  EPIPE: "connection closed",
};

/** A network error in a few words: its code's meaning, a TLS failure, or the code itself. */
function describeError(error: NodeJS.ErrnoException): string {
  const code = error.code ?? "";
  const words = ERROR_WORDS[code];
  if (words) return words;
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO/i.test(code)) return `tls error ${code}`;
  return code === "" ? "request failed" : `request failed ${code}`;
}
