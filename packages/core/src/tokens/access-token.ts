import { errors, jwtVerify } from "jose";
import { AuthError } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import { createLru } from "../support/bounded-memo.js";
import { JWT_ALGORITHM, signSessionJwt } from "./jwt.js";
import type { SigningKeys } from "./keys.js";

/** The JWT `typ` of access tokens (RFC 9068); other token kinds can never pass as one. */
export const ACCESS_TOKEN_TYPE = "at+jwt";
/** Clock skew tolerated on `exp`/`iat`, in seconds (RFC 8725 / security.md F4: at most 60). */
const LEEWAY_SECONDS = 5;
/** How many verified access tokens are remembered (see `createAccessTokenCodec`). */
export const VERIFIED_CACHE_MAX_ENTRIES = 10_000;

export interface AccessTokenClaims {
  userId: string;
  sessionId: string;
  jti: string;
  /** An impersonation's admin (the `act.sub` claim); absent for the user's own sessions. */
  actor?: string;
  /**
   * The session's active organization when the token was signed (the `org` claim); absent when
   * none (and in tokens signed before organizations existed, which stay valid). Only names the
   * organization: no role or permission is ever read from a token.
   */
  organizationId?: string;
}

export interface AccessTokenCodec {
  /**
   * Signs an access token for the session; `jti` is the allowlist key the caller stored.
   * `ttlSeconds` shortens the lifetime (never lengthens it): an impersonation's tokens end with it.
   */
  sign(claims: AccessTokenClaims, ttlSeconds?: number): Promise<string>;
  /** Verifies signature, algorithm, `typ`, `iss`, `aud` and `exp`; throws `ACCESS_TOKEN_EXPIRED` or `ACCESS_TOKEN_INVALID`. */
  verify(token: string): Promise<AccessTokenClaims>;
  /** How many verified tokens the cache holds (at most `cacheMaxEntries`). */
  cachedCount(): number;
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
  /** Verified tokens remembered, at most (default 10 000; 0 turns the cache off). */
  cacheMaxEntries?: number;
}): AccessTokenCodec {
  const { keys } = options;
  const nowSeconds = () => Math.floor(options.clock.now() / 1000);
  const cacheMaxEntries = options.cacheMaxEntries ?? VERIFIED_CACHE_MAX_ENTRIES;
  /**
   * Token strings that passed the full check below, with their claims and `exp`, in an LRU of
   * `cacheMaxEntries` (the bench's GET /me: ~8 times the requests per CPU-second). The key is the whole token, signature included, so a token signed with another
   * key, or altered in any byte, never hits. An entry is used only while the token would still
   * pass jose's `exp` check (same leeway); past that it is dropped and the full check answers.
   * Revocation does not depend on it: the caller looks the `jti` up in the allowlist every time.
   */
  const verified = createLru<string, { claims: AccessTokenClaims; exp: number }>(cacheMaxEntries);

  return {
    cachedCount: () => verified.size,
    sign: async ({ userId, sessionId, jti, actor, organizationId }, ttlSeconds) =>
      signSessionJwt(keys, {
        typ: ACCESS_TOKEN_TYPE,
        userId,
        sessionId,
        jti,
        ...(actor !== undefined ? { actor } : {}),
        ...(organizationId !== undefined ? { organizationId } : {}),
        issuer: options.issuer,
        audience: options.audience,
        issuedAtSeconds: nowSeconds(),
        ttlSeconds: Math.max(1, Math.min(options.ttlSeconds, ttlSeconds ?? options.ttlSeconds)),
      }),
    async verify(token) {
      if (token.length > 4096) throw new AuthError("ACCESS_TOKEN_INVALID");
      const hit = verified.get(token);
      if (hit !== undefined) {
        // jose's rule: expired once `exp <= now - leeway`.
        if (hit.exp > options.clock.now() / 1000 - LEEWAY_SECONDS) return { ...hit.claims };
        verified.delete(token);
      }
      try {
        const { payload } = await jwtVerify(token, keys.resolve, {
          algorithms: [JWT_ALGORITHM],
          issuer: options.issuer,
          audience: options.audience,
          typ: ACCESS_TOKEN_TYPE,
          clockTolerance: LEEWAY_SECONDS,
          currentDate: new Date(options.clock.now()),
          requiredClaims: ["exp", "iat", "sub", "jti", "sid"],
        });
        const { sub, jti, sid, exp, act, org } = payload;
        if (typeof sub !== "string" || typeof jti !== "string" || typeof sid !== "string") {
          throw new AuthError("ACCESS_TOKEN_INVALID");
        }
        const actor = (act as { sub?: unknown } | undefined)?.sub;
        const claims: AccessTokenClaims = { userId: sub, sessionId: sid, jti };
        if (typeof actor === "string") claims.actor = actor;
        if (typeof org === "string") claims.organizationId = org;
        if (typeof exp === "number") verified.set(token, { claims, exp });
        return { ...claims };
      } catch (error) {
        if (error instanceof AuthError) throw error;
        if (error instanceof errors.JWTExpired) throw new AuthError("ACCESS_TOKEN_EXPIRED", { cause: error });
        throw new AuthError("ACCESS_TOKEN_INVALID", { cause: error });
      }
    },
  };
}
