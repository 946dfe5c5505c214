import { webcrypto } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { describe, expect, it } from "vitest";
import { AccessTokenError, issueAccessToken, verifyAccessToken } from "./access-tokens.js";
import { accessTokenHash, issueIdToken, userClaims } from "./id-tokens.js";
import { HOUR_MS, testClock, testRing } from "./test-ring.js";

const ISSUER = "https://app.example.test/api/auth";
const CLIENT = "second-app";
const USER = { id: "user-1", email: "ada@example.test", emailVerified: true, name: "Ada Lovelace" };

/** The at_hash a relying party computes, the way `oauth4webapi` does it: WebCrypto, left half. */
async function relyingPartyHash(accessToken: string, hash: "SHA-256" | "SHA-512") {
  const digest = new Uint8Array(await webcrypto.subtle.digest(hash, new TextEncoder().encode(accessToken)));
  return Buffer.from(digest.slice(0, digest.byteLength / 2)).toString("base64url");
}

describe("userClaims", () => {
  it("sub always; email and email_verified with email; name with profile", () => {
    expect(userClaims(USER, ["openid"])).toEqual({ sub: "user-1" });
    expect(userClaims(USER, ["openid", "email"])).toEqual({
      sub: "user-1",
      email: "ada@example.test",
      email_verified: true,
    });
    expect(userClaims(USER, ["openid", "profile"])).toEqual({ sub: "user-1", name: "Ada Lovelace" });
    expect(userClaims({ ...USER, emailVerified: false }, ["email", "profile"])).toEqual({
      sub: "user-1",
      email: "ada@example.test",
      email_verified: false,
      name: "Ada Lovelace",
    });
  });

  it("a user without a name gets no name claim, even with profile", () => {
    expect(userClaims({ ...USER, name: null }, ["openid", "profile"])).toEqual({ sub: "user-1" });
  });
});

describe("accessTokenHash", () => {
  it("ES256 - the OpenID Connect Core example: SHA-256, left half", () => {
    // OpenID Connect Core 1.0, Appendix A.4: the access token and the at_hash of its ID token.
    expect(accessTokenHash("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", "ES256")).toBe(
      "77QmUPtjPfzWtF2AnpK9RQ",
    );
  });

  it("EdDSA and Ed25519 - SHA-512, left half, as oauth4webapi computes it", async () => {
    const token = "eyJhbGciOiJFZERTQSJ9.some-access-token.signature";
    const expected = await relyingPartyHash(token, "SHA-512");
    expect(expected).toHaveLength(43);
    expect(accessTokenHash(token, "EdDSA")).toBe(expected);
    expect(accessTokenHash(token, "Ed25519")).toBe(expected);
    expect(accessTokenHash(token, "ES256")).toBe(await relyingPartyHash(token, "SHA-256"));
  });

  it("an algorithm the provider never signs with has no at_hash here", () => {
    expect(() => accessTokenHash("token", "HS256")).toThrow(TypeError);
    expect(() => accessTokenHash("token", "none")).toThrow(TypeError);
  });
});

describe("issueIdToken", () => {
  it("signed by the ring's key (typ JWT, kid); iss, aud, sub, iat, exp, nonce, auth_time, at_hash", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const now = clock.now();
    const accessToken = await issueAccessToken(ring, {
      issuer: ISSUER,
      subject: USER.id,
      audience: CLIENT,
      clientId: CLIENT,
      scopes: ["openid", "email"],
      expiresInSeconds: 600,
      now,
    });
    const idToken = await issueIdToken(ring, {
      issuer: ISSUER,
      clientId: CLIENT,
      claims: userClaims(USER, ["openid", "email"]),
      nonce: "n-0S6_WzA2Mj",
      authTime: now - HOUR_MS + 499,
      accessToken,
      expiresInSeconds: 300,
      now: now + 999,
    });
    expect(decodeProtectedHeader(idToken)).toEqual({
      alg: "ES256",
      kid: (await ring.signingKey()).kid,
      typ: "JWT",
    });
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(await ring.jwks()), {
      issuer: ISSUER,
      audience: CLIENT,
      typ: "JWT",
      currentDate: new Date(now),
    });
    const seconds = Math.floor(now / 1000);
    expect(payload).toEqual({
      iss: ISSUER,
      aud: CLIENT,
      sub: USER.id,
      email: USER.email,
      email_verified: true,
      nonce: "n-0S6_WzA2Mj",
      auth_time: Math.floor((now - HOUR_MS + 499) / 1000),
      at_hash: await relyingPartyHash(accessToken, "SHA-256"),
      iat: seconds,
      exp: seconds + 300,
    });
  });

  it("without nonce, authTime or access token: none of nonce, auth_time, at_hash", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const idToken = await issueIdToken(ring, {
      issuer: ISSUER,
      clientId: CLIENT,
      claims: { sub: "user-2" },
      expiresInSeconds: 60,
      now: clock.now(),
    });
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(await ring.jwks()), {
      issuer: ISSUER,
      audience: CLIENT,
      currentDate: new Date(clock.now()),
    });
    expect(Object.keys(payload).sort()).toEqual(["aud", "exp", "iat", "iss", "sub"]);
  });

  it("an EdDSA ring signs EdDSA ID tokens whose at_hash is the SHA-512 left half", async () => {
    const clock = testClock();
    const { ring } = testRing(clock, { algorithm: "EdDSA" });
    const accessToken = "an-access-token-of-the-grant";
    const idToken = await issueIdToken(ring, {
      issuer: ISSUER,
      clientId: CLIENT,
      claims: { sub: USER.id },
      accessToken,
      expiresInSeconds: 60,
      now: clock.now(),
    });
    expect(decodeProtectedHeader(idToken).alg).toBe("EdDSA");
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(await ring.jwks()), {
      issuer: ISSUER,
      audience: CLIENT,
      currentDate: new Date(clock.now()),
    });
    expect(payload.at_hash).toBe(await relyingPartyHash(accessToken, "SHA-512"));
  });

  it("claims cannot override iss, aud, iat or exp; a missing sub is refused", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const idToken = await issueIdToken(ring, {
      issuer: ISSUER,
      clientId: CLIENT,
      claims: { sub: USER.id, iss: "https://evil.test", aud: "other", iat: 1, exp: 9_999_999_999 },
      expiresInSeconds: 60,
      now: clock.now(),
    });
    const { payload } = await jwtVerify(idToken, createLocalJWKSet(await ring.jwks()), {
      issuer: ISSUER,
      audience: CLIENT,
      currentDate: new Date(clock.now()),
    });
    expect(payload.exp).toBe(Math.floor(clock.now() / 1000) + 60);
    await expect(
      issueIdToken(ring, {
        issuer: ISSUER,
        clientId: CLIENT,
        claims: {},
        expiresInSeconds: 60,
        now: clock.now(),
      }),
    ).rejects.toThrow(TypeError);
  });

  it("an ID token is not an access token: verifyAccessToken refuses it (typ)", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const idToken = await issueIdToken(ring, {
      issuer: ISSUER,
      clientId: CLIENT,
      claims: { sub: USER.id, client_id: CLIENT, scope: "openid" },
      expiresInSeconds: 60,
      now: clock.now(),
    });
    const refused = verifyAccessToken(idToken, {
      issuer: ISSUER,
      audience: CLIENT,
      keys: await ring.jwks(),
      now: clock.now(),
    });
    await expect(refused).rejects.toBeInstanceOf(AccessTokenError);
  });
});
