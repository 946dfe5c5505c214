import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { ExampleAuth } from "../setup.js";
import type { BrowserFixture } from "./fixture.js";

// The relying party of the OAuth provider's browser tests (oauth-provider.ts), made by hand: the
// example with OAUTH_PROVIDER on and two clients seeded from a file, a callback server on
// 127.0.0.1, the authorization URL with PKCE, and the token endpoint's requests.

/** The device grant's `grant_type` (RFC 8628). */
const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/** Every scope the example offers: what the browser app asks for. */
export const SCOPES = ["openid", "profile", "email", "offline_access", "projects:read"];

/**
 * The relying party's callback: a page on 127.0.0.1 that records each request to `/callback`.
 * Anything else (the browser's own `/favicon.ico`) is a 404 and not recorded.
 */
export async function startCallbackServer() {
  const hits: URL[] = [];
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") return void response.writeHead(404).end();
    hits.push(url);
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(
      '<!doctype html><html lang="en"><link rel="icon" href="data:,"><title>Back at the app</title><p>Back at the app</p></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    redirectUri: `${origin}/callback`,
    hits,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
/** What `startCallbackServer` runs. */
export type Callback = Awaited<ReturnType<typeof startCallbackServer>>;

/** The example with OAUTH_PROVIDER on, its clients from a file (a browser app and a TV app), and the callback. */
export interface Provider {
  base: string;
  example: ExampleAuth;
  callback: Callback;
}

/** Runs `body` against an example with the provider on; everything it started is stopped after. */
export async function withProvider(f: BrowserFixture, body: (provider: Provider) => Promise<void>) {
  const callback = await startCallbackServer();
  const dir = await mkdtemp(join(tmpdir(), "portcullis-oauth-browser-"));
  const clientsFile = join(dir, "clients.json");
  const clients = [
    { clientId: "browser-app", name: "Browser App", redirectUris: [callback.redirectUri], scopes: SCOPES },
    {
      clientId: "tv",
      name: "TV App",
      redirectUris: [],
      grants: ["device_code", "refresh_token"],
      scopes: SCOPES,
    },
  ];
  await writeFile(clientsFile, JSON.stringify(clients));
  // The UI's `/ui/config` tells the page from the server's environment, as a deployment's server
  // reads it (pages.ts): set while this app builds its pages, not for the suite's own app.
  process.env.OAUTH_PROVIDER = "true";
  const other = await f
    .openOther({ OAUTH_PROVIDER: "true", OAUTH_CLIENTS_FILE: clientsFile })
    .finally(() => delete process.env.OAUTH_PROVIDER);
  try {
    await body({ base: other.base, example: other.example, callback });
  } finally {
    await other.close();
    await callback.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** A code flow's PKCE pair (S256), state and nonce. */
export function flowSecrets() {
  const verifier = randomBytes(32).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: randomBytes(12).toString("base64url"),
    nonce: randomBytes(12).toString("base64url"),
  };
}
/** What `flowSecrets` makes. */
export type Flow = ReturnType<typeof flowSecrets>;

/** The authorization URL a relying party builds by hand (`extra`: e.g. `prompt`). */
export const authorizationUrl = (p: Provider, flow: Flow, extra: Record<string, string> = {}) =>
  `${p.base}/api/auth/oauth2/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: "browser-app",
    redirect_uri: p.callback.redirectUri,
    scope: SCOPES.join(" "),
    state: flow.state,
    code_challenge: flow.challenge,
    code_challenge_method: "S256",
    nonce: flow.nonce,
    ...extra,
  })}`;

/** A form POST to the token endpoint, as a relying party sends it (no cookie). */
export async function tokenRequest(p: Provider, form: Record<string, string>) {
  const response = await fetch(`${p.base}/api/auth/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** The claims of a JWT, read without a check (the caller verifies what it relies on). */
export const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;

/** A device authorization of the TV app, as the device starts it. */
export async function startDevice(p: Provider) {
  const response = await fetch(`${p.base}/api/auth/oauth2/device_authorization`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: "tv", scope: "openid profile projects:read" }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}
/** One poll of the device at the token endpoint. */
export const poll = (p: Provider, deviceCode: string) =>
  tokenRequest(p, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: "tv" });
