import { SignJWT } from "jose";
import type { SigningKeys } from "./keys.js";

/** The one algorithm Portcullis signs and accepts: any other `alg` (including `none`) is refused. */
export const JWT_ALGORITHM = "HS256";

/**
 * Signs a JWT of one of Portcullis's kinds (`typ`) for a user's session: `sub`, `sid`, `iss`,
 * `aud`, `iat`, `exp` (and `jti` when given), under the current key, named by `kid`.
 */
export async function signSessionJwt(
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
): Promise<string> {
  const payload: Record<string, unknown> = { sid: claims.sessionId };
  if (claims.actor !== undefined) payload.act = { sub: claims.actor };
  if (claims.organizationId !== undefined) payload.org = claims.organizationId;
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: JWT_ALGORITHM, typ: claims.typ, kid: keys.currentKid })
    .setSubject(claims.userId)
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setIssuedAt(claims.issuedAtSeconds)
    .setExpirationTime(claims.issuedAtSeconds + claims.ttlSeconds);
  if (claims.jti !== undefined) jwt.setJti(claims.jti);
  return jwt.sign(await keys.current());
}
