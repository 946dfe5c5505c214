import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { decodeProtectedHeader } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { issueAccessToken } from "./access-tokens.js";
import { DAY_MS, HOUR_MS, testClock, testRing } from "./test-ring.js";

const ISSUER = "https://app.example.test/api/auth";
const API = "https://api.example.test";
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/**
 * A resource server in a process of its own: it knows the provider's issuer and JWKS URL, and no
 * secret of the provider's (its environment holds only PATH). It verifies each token with `jose`
 * against the JWKS it fetches, and prints `ok <sub> <scope>` or `refused <code>` per token.
 */
const RESOURCE_SERVER = `
import { createRemoteJWKSet, jwtVerify } from "jose";
const [jwksUrl, issuer, audience, ...tokens] = process.argv.slice(1);
const keys = createRemoteJWKSet(new URL(jwksUrl));
for (const token of tokens) {
  try {
    const { payload } = await jwtVerify(token, keys, { issuer, audience, typ: "at+jwt", algorithms: ["ES256", "EdDSA"] });
    console.log("ok", payload.sub, payload.scope);
  } catch (error) {
    console.log("refused", error.code);
  }
}`;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** The ring's JWKS served at http://127.0.0.1:<port>/jwks, as the provider's route will serve it. */
async function serveJwks(jwks: () => Promise<unknown>): Promise<URL> {
  const server = createServer((_request, response) => {
    void jwks().then((document) => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(document));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
}

async function resourceServer(jwksUrl: URL, tokens: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--input-type=module", "-e", RESOURCE_SERVER, jwksUrl.href, ISSUER, API, ...tokens],
    { cwd: PACKAGE_DIR, env: { PATH: process.env.PATH ?? "" } },
  );
  return stdout.trim().split("\n");
}

describe("a resource server with the JWKS alone", () => {
  it("verifyAccessToken elsewhere - another process verifies with jose and the JWKS URL, before and after a rotation", async () => {
    // The keys' clock: the first key made 30 days ago, so the next one is due now. Tokens carry
    // the real time, which the resource server checks them against.
    const clock = testClock(Date.now() - 30 * DAY_MS);
    const { ring } = testRing(clock, { rotationDays: 30, publishAheadSeconds: 3600 });
    await ring.signingKey();
    const url = await serveJwks(() => ring.jwks());
    const grant = (scopes: string[], audience = API) => ({
      issuer: ISSUER,
      subject: "user-7",
      audience,
      clientId: "cli",
      scopes,
      expiresInSeconds: 3600,
      now: Date.now(),
    });
    clock.advance(30 * DAY_MS - HOUR_MS);
    const old = await issueAccessToken(ring, grant(["projects:read"]));
    const otherAudience = await issueAccessToken(ring, grant(["projects:read"], "https://other.test"));
    expect(await resourceServer(url, [old, otherAudience])).toEqual([
      "ok user-7 projects:read",
      "refused ERR_JWT_CLAIM_VALIDATION_FAILED",
    ]);
    // The next key takes over; the old key's token still verifies, beside the new key's.
    clock.advance(HOUR_MS);
    const rotated = await issueAccessToken(ring, grant(["projects:write"]));
    expect(decodeProtectedHeader(rotated).kid).not.toBe(decodeProtectedHeader(old).kid);
    expect(await resourceServer(url, [old, rotated])).toEqual([
      "ok user-7 projects:read",
      "ok user-7 projects:write",
    ]);
  });
});
