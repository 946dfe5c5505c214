import type { IncomingMessage, ServerResponse } from "node:http";
import { listenFake } from "./fake-server.js";

/** The token the fake siteverify accepts; every other token is refused (`success: false`). */
export const GOOD_CAPTCHA_TOKEN = "good-captcha-token";

/** A CAPTCHA siteverify service (Turnstile, hCaptcha and reCAPTCHA share the protocol) on 127.0.0.1 for tests. */
export interface FakeSiteverifyServer {
  /** The `verifyUrl` to configure: `http://127.0.0.1:<port>/siteverify`. */
  verifyUrl: string;
  /** The form fields of every request received, in order (`secret`, `response`, `remoteip`). */
  requests: Record<string, string>[];
  /** Each answer waits this long first (a slow provider). Default 0. */
  delayMs: number;
  /** Answer 200 with this text instead of the verdict (an unreadable answer); null (default) answers normally. */
  garbage: string | null;
  /** Stops listening: later requests are refused (a provider that is down). */
  stop(): Promise<void>;
}

/** `request`'s form-encoded body as fields. */
async function formOf(request: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
}

/**
 * Starts a fake siteverify: `POST /siteverify` with a form-encoded `secret` and `response`
 * answers `{ "success": true }` when the secret is `secret` and the response is
 * `GOOD_CAPTCHA_TOKEN`, else `{ "success": false, "error-codes": [...] }`. Stopped after the test
 * by the caller (`stop`).
 */
export async function startFakeSiteverifyServer(secret: string): Promise<FakeSiteverifyServer> {
  const fake: FakeSiteverifyServer = {
    verifyUrl: "",
    requests: [],
    delayMs: 0,
    garbage: null,
    stop: async () => undefined,
  };
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const form = await formOf(request);
    fake.requests.push(form);
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    if (response.destroyed) return;
    if (request.method !== "POST" || request.url !== "/siteverify") {
      response.writeHead(404).end();
      return;
    }
    if (fake.garbage !== null) {
      response.writeHead(200, { "content-type": "text/html" }).end(fake.garbage);
      return;
    }
    const success = form.secret === secret && form.response === GOOD_CAPTCHA_TOKEN;
    const verdict = success ? { success } : { success, "error-codes": ["invalid-input-response"] };
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(verdict));
  };
  const listening = await listenFake(answer);
  fake.verifyUrl = `${listening.origin}/siteverify`;
  fake.stop = listening.stop;
  return fake;
}
