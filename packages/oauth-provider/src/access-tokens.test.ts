import { createHmac } from "node:crypto";
import { decodeProtectedHeader, type JWK, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { AccessTokenError, issueAccessToken, verifyAccessToken } from "./access-tokens.js";
import { DAY_MS, HOUR_MS, testClock, testRing } from "./test-ring.js";

const ISSUER = "https://app.example.test/api/auth";
const API = "https://api.example.test";

const grant = (now: number, over: Partial<Parameters<typeof issueAccessToken>[1]> = {}) => ({
  issuer: ISSUER,
  subject: "user-1",
  audience: API,
  clientId: "second-app",
  scopes: ["openid", "projects:read"],
  expiresInSeconds: 600,
  now,
  ...over,
});

/** The refusal `promise` rejects with: its `code`. */
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => "accepted",
    (error: unknown) => (error instanceof AccessTokenError ? error.code : `other: ${String(error)}`),
  );

describe("RFC 9068 access tokens", () => {
  it("issueAccessToken - at+jwt with the signing key's kid; verifyAccessToken reads who, which client, which scopes", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const token = await issueAccessToken(ring, grant(clock.now()));
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg: "ES256", kid: (await ring.signingKey()).kid, typ: "at+jwt" });
    const verified = await verifyAccessToken(token, {
      issuer: ISSUER,
      audience: API,
      scopes: ["projects:read"],
      keys: await ring.jwks(),
      now: clock.now(),
    });
    expect(verified).toMatchObject({
      subject: "user-1",
      clientId: "second-app",
      scopes: ["openid", "projects:read"],
      audience: [API],
      expiresAt: Math.floor(clock.now() / 1000) * 1000 + 600_000,
    });
    expect(verified.jti).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it("verifyAccessToken - another audience or issuer, an expired token, a changed claim, a missing scope: refused", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const keys = await ring.jwks();
    const now = clock.now();
    const options = { issuer: ISSUER, audience: API, keys, now };
    const token = await issueAccessToken(ring, grant(now));
    expect(
      await refusal(verifyAccessToken(token, { ...options, audience: "https://other.example.test" })),
    ).toBe("invalid_token");
    expect(await refusal(verifyAccessToken(token, { ...options, issuer: "https://evil.example.test" }))).toBe(
      "invalid_token",
    );
    expect(await refusal(verifyAccessToken(token, { ...options, now: now + 600_000 + 4_000 }))).toBe(
      "accepted",
    );
    expect(await refusal(verifyAccessToken(token, { ...options, now: now + 600_000 + 6_000 }))).toBe(
      "invalid_token",
    );
    const [head, body, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(body ?? "", "base64url").toString()) as Record<string, unknown>;
    const changed = Buffer.from(JSON.stringify({ ...claims, sub: "admin" })).toString("base64url");
    expect(await refusal(verifyAccessToken(`${head}.${changed}.${signature}`, options))).toBe(
      "invalid_token",
    );
    expect(await refusal(verifyAccessToken(token, { ...options, scopes: ["projects:write"] }))).toBe(
      "insufficient_scope",
    );
    expect(await refusal(verifyAccessToken("not.a.token", options))).toBe("invalid_token");
  });

  it("verifyAccessToken - not at+jwt, alg none, HS256 keyed with the public key, an unknown kid: refused", async () => {
    const clock = testClock();
    const { ring } = testRing(clock);
    const keys = await ring.jwks();
    const now = clock.now();
    const options = { issuer: ISSUER, audience: API, keys, now };
    const key = await ring.signingKey();
    const claims = { client_id: "second-app", scope: "projects:read" };
    const signed = (header: Record<string, string>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: key.kid, ...header })
        .setIssuer(ISSUER)
        .setSubject("user-1")
        .setAudience(API)
        .setIssuedAt(Math.floor(now / 1000))
        .setExpirationTime(Math.floor(now / 1000) + 600)
        .sign(key.privateKey);
    // An ID token or any other JWT of the same key is not an access token.
    expect(await refusal(verifyAccessToken(await signed({ typ: "JWT" }), options))).toBe("invalid_token");
    expect(await refusal(verifyAccessToken(await signed({ typ: "at+jwt" }), options))).toBe("accepted");
    const unsecured = new UnsecuredJWT({ ...claims, typ: "at+jwt" })
      .setIssuer(ISSUER)
      .setSubject("user-1")
      .setAudience(API)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + 600)
      .encode();
    expect(await refusal(verifyAccessToken(unsecured, options))).toBe("invalid_token");
    // The public JWK's text used as an HMAC secret (the algorithm-confusion attack).
    const publicJwk = keys.keys[0] as JWK;
    const hsHead = Buffer.from(JSON.stringify({ alg: "HS256", kid: key.kid, typ: "at+jwt" })).toString(
      "base64url",
    );
    const hsBody = Buffer.from(
      JSON.stringify({
        ...claims,
        iss: ISSUER,
        sub: "user-1",
        aud: API,
        iat: Math.floor(now / 1000),
        exp: Math.floor(now / 1000) + 600,
      }),
    ).toString("base64url");
    const hsSignature = createHmac("sha256", JSON.stringify(publicJwk))
      .update(`${hsHead}.${hsBody}`)
      .digest("base64url");
    expect(await refusal(verifyAccessToken(`${hsHead}.${hsBody}.${hsSignature}`, options))).toBe(
      "invalid_token",
    );
    const other = testRing(testClock()).ring;
    const foreign = await issueAccessToken(other, grant(now));
    expect(await refusal(verifyAccessToken(foreign, options))).toBe("invalid_token");
  });

  it("rotation - a token of the retired key verifies with the JWKS until it expires; then neither it nor its key is there", async () => {
    const clock = testClock();
    const { ring } = testRing(clock, { rotationDays: 30, publishAheadSeconds: 3600 });
    await ring.signingKey();
    clock.advance(30 * DAY_MS - HOUR_MS);
    await ring.signingKey();
    clock.advance(HOUR_MS - 60_000);
    // Signed by the old key in its last minute, valid for an hour (the ring's token lifetime).
    const old = await issueAccessToken(ring, grant(clock.now(), { expiresInSeconds: 3600 }));
    clock.advance(60_000);
    const fresh = await issueAccessToken(ring, grant(clock.now(), { expiresInSeconds: 3600 }));
    expect(decodeProtectedHeader(fresh).kid).not.toBe(decodeProtectedHeader(old).kid);
    const verify = async (token: string) =>
      refusal(
        verifyAccessToken(token, {
          issuer: ISSUER,
          audience: API,
          keys: await ring.jwks(),
          now: clock.now(),
        }),
      );
    expect(await verify(old)).toBe("accepted");
    expect(await verify(fresh)).toBe("accepted");
    clock.advance(HOUR_MS - 120_000);
    expect(await verify(old)).toBe("accepted");
    clock.advance(120_000);
    expect((await ring.jwks()).keys.map((key) => key.kid)).toEqual([decodeProtectedHeader(fresh).kid]);
    expect(await verify(old)).toBe("invalid_token");
    expect(await verify(fresh)).toBe("accepted");
  });
});
