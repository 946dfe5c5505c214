import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import {
  type LookupAddresses,
  type ResolvedAddress,
  resolveWebhookTarget,
} from "../webhooks/address-guard.js";
import { pinnedLookup } from "../webhooks/send.js";

/** What `createGuardedFetch` takes. */
export interface GuardedFetchOptions {
  /** Allows `http:` and addresses that are not public unicast: for a provider on the developer's machine or in a test. */
  allowPrivateNetworks: boolean;
  /** How host names are resolved (tests inject one). Default: the system resolver. */
  lookup?: LookupAddresses | undefined;
  /** How long one request may take in all: resolving, connecting, sending and reading the answer (ms). Default 10,000. */
  timeoutMs?: number;
  /** The most bytes of an answer read; a longer one fails. Default 1 MiB (a discovery document or a key set is a few KiB). */
  maxAnswerBytes?: number;
}

/** The request a guarded fetch takes: what openid-client's `customFetch` passes. */
export interface GuardedRequestInit {
  method?: string;
  headers?: Headers | Record<string, string> | [string, string][];
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | null;
  signal?: AbortSignal | null;
}

/** A refused or failed guarded request (openid-client reads a `TypeError` as "the provider did not answer"). */
export class GuardedFetchError extends TypeError {
  override readonly name = "GuardedFetchError";
}

/** A request body as bytes (or none). */
function bodyBytes(body: GuardedRequestInit["body"]): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof URLSearchParams) return Buffer.from(String(body));
  return Buffer.from(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
}

/**
 * A `fetch` for URLs a tenant gave (an organization's OpenID Connect issuer and the endpoints its
 * discovery document names): like a webhook's send (docs/webhooks.md, "Outbound safety"), every
 * request resolves its host now and is refused when any address is loopback, private, link-local
 * or otherwise not public unicast (unless `allowPrivateNetworks`), then connects only to those
 * checked addresses (a DNS answer that changes in between cannot redirect it). Only https unless
 * `allowPrivateNetworks`; redirects are answered, never followed; the whole request is cut at
 * `timeoutMs` and an answer over `maxAnswerBytes` fails. A refusal rejects with `GuardedFetchError`.
 */
export function createGuardedFetch(options: GuardedFetchOptions) {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAnswerBytes = options.maxAnswerBytes ?? 1024 * 1024;
  return async (url: string | URL, init: GuardedRequestInit = {}): Promise<Response> => {
    const started = performance.now();
    const target = await resolveWebhookTarget(String(url), {
      allowPrivateNetworks: options.allowPrivateNetworks,
      lookup: options.lookup,
      lookupTimeoutMs: timeoutMs,
    });
    if (!target.ok) throw new GuardedFetchError(`refused ${String(url)}: ${target.reason}`);
    const remaining = timeoutMs - (performance.now() - started);
    if (remaining <= 0) throw new GuardedFetchError(`timed out: ${String(url)}`);
    return send(target.url, target.addresses, init, { timeoutMs: remaining, maxAnswerBytes });
  };
}

/** One request to `url` over `addresses` only, its answer read whole (up to the cap) into a `Response`. */
function send(
  url: URL,
  addresses: readonly ResolvedAddress[],
  init: GuardedRequestInit,
  limits: { timeoutMs: number; maxAnswerBytes: number },
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: Error | null, response?: Response) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      init.signal?.removeEventListener("abort", abort);
      if (error) {
        request.destroy();
        reject(error);
      } else if (response) resolve(response);
    };
    const abort = () => settle(new GuardedFetchError(`aborted: ${url.href}`));
    const body = bodyBytes(init.body);
    const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers ?? {}));
    if (body !== undefined) headers["content-length"] = String(body.length);
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      { method: init.method ?? "GET", agent: false, lookup: pinnedLookup(addresses), headers },
      (answer) => readAnswer(answer, url, limits.maxAnswerBytes, settle),
    );
    request.on("error", (error) => settle(new GuardedFetchError(`${url.href}: ${error.message}`)));
    const timer = setTimeout(() => settle(new GuardedFetchError(`timed out: ${url.href}`)), limits.timeoutMs);
    timer.unref?.();
    if (init.signal?.aborted) return abort();
    init.signal?.addEventListener("abort", abort, { once: true });
    request.end(body);
  });
}

/** Reads the answer up to `maxBytes` (more fails), then settles with it as a `Response`. */
function readAnswer(
  answer: IncomingMessage,
  url: URL,
  maxBytes: number,
  settle: (error: Error | null, response?: Response) => void,
): void {
  const chunks: Buffer[] = [];
  let received = 0;
  answer.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) settle(new GuardedFetchError(`answer over ${maxBytes} bytes: ${url.href}`));
    else chunks.push(chunk);
  });
  answer.on("error", (error) => settle(new GuardedFetchError(`${url.href}: ${error.message}`)));
  answer.on("end", () => {
    const status = answer.statusCode ?? 502;
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    if (status < 200 || status > 599)
      return settle(new GuardedFetchError(`status ${status} from ${url.href}`));
    const empty = status === 204 || status === 304;
    settle(null, new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
  });
}
