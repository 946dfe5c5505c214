import { errors, jwtVerify, SignJWT } from "jose";
import { AuthError } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { SigningKeys } from "./keys.js";

/** The pinned algorithm: tokens with any other `alg` (including `none`) are refused. */
const ALGORITHM = "HS256";
/** The JWT `typ` of access tokens (RFC 9068); other token kinds can never pass as one. */
export const ACCESS_TOKEN_TYPE = "at+jwt";
/** Clock skew tolerated on `exp`/`iat`, in seconds (RFC 8725 / SECURITY F4: at most 60). */
const LEEWAY_SECONDS = 5;

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  jti: string;
}

export interface AccessTokenCodec {
  /** Signs an access token for the session; `jti` is the allowlist key the caller stored. */
  sign(claims: AccessTokenClaims): Promise<string>;
  /** Verifies signature, algorithm, `typ`, `iss`, `aud` and `exp`; throws `ACCESS_TOKEN_EXPIRED` or `ACCESS_TOKEN_INVALID`. */
  verify(token: string): Promise<AccessTokenClaims>;
}

/**
 * Access tokens are HS256 JWTs made and checked with jose. Keys come from configuration only,
 * imported once: `kid` names one of the configured secrets (the first signs); `jwk` and `jku`
 * headers are never consulted, and an unknown `kid` is refused.
 */
export function createAccessTokenCodec(options: {
  keys: SigningKeys;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clock: Clock;
}): AccessTokenCodec {
  const { keys } = options;
  const nowSeconds = () => Math.floor(options.clock.now() / 1000);

  return {
    async sign({ userId, sessionId, jti }) {
      const iat = nowSeconds();
      return new SignJWT({ sid: sessionId })
        .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid: keys.currentKid })
        .setSubject(userId)
        .setJti(jti)
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setIssuedAt(iat)
        .setExpirationTime(iat + options.ttlSeconds)
        .sign(await keys.current());
    },
    async verify(token) {
      if (token.length > 4096) throw new AuthError("ACCESS_TOKEN_INVALID");
      try {
        const { payload } = await jwtVerify(token, keys.resolve, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          audience: options.audience,
          typ: ACCESS_TOKEN_TYPE,
          clockTolerance: LEEWAY_SECONDS,
          currentDate: new Date(options.clock.now()),
          requiredClaims: ["exp", "iat", "sub", "jti", "sid"],
        });
        const { sub, jti, sid } = payload;
        if (typeof sub !== "string" || typeof jti !== "string" || typeof sid !== "string") {
          throw new AuthError("ACCESS_TOKEN_INVALID");
        }
        return { userId: sub, sessionId: sid, jti };
      } catch (error) {
        if (error instanceof AuthError) throw error;
        if (error instanceof errors.JWTExpired) throw new AuthError("ACCESS_TOKEN_EXPIRED", { cause: error });
        throw new AuthError("ACCESS_TOKEN_INVALID", { cause: error });
      }
    },
  };
}
