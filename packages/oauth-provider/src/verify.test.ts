import type { JWK } from "jose";
import { describe, expect, it } from "vitest";
import { AccessTokenError, issueAccessToken, verifyAccessToken } from "./access-tokens.js";
import { testClock, testRing } from "./test-ring.js";
import { createRingVerifier } from "./verify.js";

// The full check, counted: a remembered token must not go through it again.
let fullCheckCalls = 0;
const countedCheck: typeof verifyAccessToken = (token, options) => {
  fullCheckCalls++;
  return verifyAccessToken(token, options);
};
const fullChecks = () => fullCheckCalls;

const ISSUER = "https://app.example.test/api/auth";
const API = "https://api.example.test";

/** The refusal `promise` rejects with: its `code`, or "accepted". */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "accepted",
    (error: unknown) => (error instanceof AccessTokenError ? error.code : `other: ${String(error)}`),
  );

/** A ring on a test clock, a verifier over it, and tokens it signs (600 s, scopes openid projects:read). */
async function setUp(maxEntries?: number) {
  const clock = testClock();
  const { ring } = testRing(clock);
  const verify = createRingVerifier({ ring, issuer: ISSUER, now: clock.now }, maxEntries, countedCheck);
  const sign = (over: { subject?: string; audience?: string; scopes?: string[] } = {}) =>
    issueAccessToken(ring, {
      issuer: ISSUER,
      subject: over.subject ?? "user-1",
      audience: over.audience ?? API,
      clientId: "second-app",
      scopes: over.scopes ?? ["openid", "projects:read"],
      expiresInSeconds: 600,
      now: clock.now(),
      grantId: "grant-1",
    });
  return { clock, verify, sign };
}

describe("the provider's own verify of its access tokens (auth.oauthProvider.verifyAccessToken)", () => {
  it("createRingVerifier - a token verified once is remembered: the same answer, each call's scopes checked again", async () => {
    const { verify, sign } = await setUp();
    const token = await sign();
    const checks = fullChecks();
    const first = await verify(token, { audience: API, scopes: ["projects:read"] });
    expect(fullChecks()).toBe(checks + 1);
    expect(first).toEqual({
      subject: "user-1",
      userId: "user-1",
      clientId: "second-app",
      scopes: ["openid", "projects:read"],
      audience: [API],
      expiresAt: expect.any(Number),
    });
    expect(verify.size).toBe(1);
    const again = await verify(token, { audience: API, scopes: ["openid"] });
    expect(again).toEqual(first);
    expect(fullChecks()).toBe(checks + 1);
    expect(verify.size).toBe(1);
    // A caller changing its answer does not change what is remembered.
    again.scopes.push("projects:write");
    expect(await refusal(verify(token, { audience: API, scopes: ["projects:write"] }))).toBe(
      "insufficient_scope",
    );
    expect((await verify(token, { audience: API })).scopes).toEqual(["openid", "projects:read"]);
  });

  it("createRingVerifier - a remembered token is refused once expired (jose's rule, 5 s of tolerance), and forgotten", async () => {
    const { clock, verify, sign } = await setUp();
    const token = await sign();
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    clock.advance(600_000 + 4_999);
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    clock.advance(1);
    expect(await refusal(verify(token, { audience: API }))).toBe("invalid_token");
    expect(verify.size).toBe(0);
  });

  it("createRingVerifier - the audience is part of what is remembered: a token for one API is refused for another", async () => {
    const { verify, sign } = await setUp();
    const token = await sign();
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    expect(await refusal(verify(token, { audience: "https://other.example.test" }))).toBe("invalid_token");
    expect(await refusal(verify(`${token}\nhttps://other.example.test`, { audience: API }))).toBe(
      "invalid_token",
    );
  });

  it("createRingVerifier - refusals are not remembered: a token altered after a good one is checked in full", async () => {
    const { verify, sign } = await setUp();
    const token = await sign();
    const [head, , signature] = token.split(".");
    const other = (await sign({ subject: "user-2" })).split(".")[1];
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    expect(await refusal(verify(`${head}.${other}.${signature}`, { audience: API }))).toBe("invalid_token");
    expect(await refusal(verify(`${head}.${other}.${signature}`, { audience: API }))).toBe("invalid_token");
    expect(verify.size).toBe(1);
  });

  it("createRingVerifier - when the published keys change, every remembered token is verified again against the new set", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    let published: { keys: JWK[] } | undefined;
    const verify = createRingVerifier({
      ring: { ...ring, jwks: async () => published ?? ring.jwks() },
      issuer: ISSUER,
      now: clock.now,
    });
    const token = await issueAccessToken(ring, {
      issuer: ISSUER,
      subject: "user-1",
      audience: API,
      clientId: "second-app",
      scopes: ["openid"],
      expiresInSeconds: 600,
      now: clock.now(),
    });
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    // The signing key retired: a set without it, as the ring publishes once its tokens may be gone.
    published = { keys: [] };
    expect(await refusal(verify(token, { audience: API }))).toBe("invalid_token");
    expect(verify.size).toBe(0);
    published = undefined;
    expect(await refusal(verify(token, { audience: API }))).toBe("accepted");
    // A check that began on the old set and ends after a call saw the new one is not remembered.
    const current = await ring.jwks();
    const other = createRingVerifier({
      ring: { ...ring, jwks: async () => published ?? current },
      issuer: ISSUER,
      now: clock.now,
    });
    const begun = refusal(other(token, { audience: API }));
    published = { keys: [] };
    expect(await refusal(other(token, { audience: API }))).toBe("invalid_token");
    expect(await begun).toBe("accepted");
    expect(other.size).toBe(0);
  });

  it("createRingVerifier - at most maxEntries tokens, the oldest forgotten first; 0 remembers nothing", async () => {
    const { verify, sign } = await setUp(3);
    const tokens = [];
    for (let i = 0; i < 5; i++) tokens.push(await sign({ subject: `user-${i}` }));
    for (const token of tokens) await verify(token, { audience: API });
    expect(verify.size).toBe(3);
    // The last three are remembered; the first two are checked again (and push out the oldest).
    const checks = fullChecks();
    for (const token of tokens.slice(2)) await verify(token, { audience: API });
    expect(fullChecks()).toBe(checks);
    for (const [i, token] of tokens.entries())
      expect((await verify(token, { audience: API })).subject).toBe(`user-${i}`);
    expect(verify.size).toBe(3);
    const none = await setUp(0);
    await none.verify(await none.sign(), { audience: API });
    expect(none.verify.size).toBe(0);
  });
});
