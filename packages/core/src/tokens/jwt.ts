import { createHmac } from "node:crypto";
import type { SigningKeys } from "./keys.js";

/** The one algorithm Portcullis signs and accepts: any other `alg` (including `none`) is refused. */
export const JWT_ALGORITHM = "HS256";

const base64url = (json: string) => Buffer.from(json, "utf8").toString("base64url");

/**
 * Signs a JWT of one of Portcullis's kinds (`typ`) for a user's session: `sub`, `sid`, `iss`,
 * `aud`, `iat`, `exp` (and `jti` when given), under the current key, named by `kid`.
 *
 * The JWS compact serialization (RFC 7515 §7.1) of HS256 with node:crypto's HMAC, not jose's
 * `SignJWT`: jose signs through WebCrypto, whose sign job cost about 50 µs of CPU per token here
 * against 4 µs for `createHmac` (bench/README.md, the CPU per request). The bytes are the ones
 * jose's `SignJWT` makes for the same claims, header and payload members in the same order
 * (jwt.test.ts compares them), and jose verifies every token (access-token.ts).
 */
export function signSessionJwt(
  keys: SigningKeys,
  claims: {
    typ: string;
    userId: string;
    sessionId: string;
    jti?: string;
    /** RFC 8693's actor claim (`act: { sub }`): who acts as the user (an admin's impersonation). */
    actor?: string;
    /** The session's active organization (the private `org` claim); absent: none. */
    organizationId?: string;
    issuer: string;
    audience: string;
    issuedAtSeconds: number;
    ttlSeconds: number;
  },
): string {
  const payload: Record<string, unknown> = { sid: claims.sessionId };
  if (claims.actor !== undefined) payload.act = { sub: claims.actor };
  if (claims.organizationId !== undefined) payload.org = claims.organizationId;
  payload.sub = claims.userId;
  payload.iss = claims.issuer;
  payload.aud = claims.audience;
  payload.iat = claims.issuedAtSeconds;
  payload.exp = claims.issuedAtSeconds + claims.ttlSeconds;
  if (claims.jti !== undefined) payload.jti = claims.jti;
  const header = { alg: JWT_ALGORITHM, typ: claims.typ, kid: keys.currentKid };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
  const signature = createHmac("sha256", keys.currentSecret).update(input).digest("base64url");
  return `${input}.${signature}`;
}
