import type { OAuthAccessToken } from "@portcullis/core";
import {
  CLOCK_TOLERANCE_SECONDS,
  requireScopes,
  type VerifiedAccessToken,
  verifyAccessToken,
} from "./access-tokens.js";
import type { ProviderContext } from "./provider-context.js";

/** How many verified access tokens one provider remembers (`createRingVerifier`). */
export const VERIFIED_TOKENS_MAX_ENTRIES = 10_000;

/** `auth.oauthProvider.verifyAccessToken`: a token, and the audience and scopes the call needs. */
export type RingVerifier = ((
  token: string,
  check: { audience: string; scopes?: readonly string[] },
) => Promise<OAuthAccessToken>) & {
  /** How many verified tokens are remembered now (at most `VERIFIED_TOKENS_MAX_ENTRIES`). */
  readonly size: number;
};

/**
 * `auth.oauthProvider.verifyAccessToken`: the token checked against the provider's own keys (read
 * through the ring's cache, so no store round trip on most calls), for `audience` and `scopes`.
 * A token without a grant (`gid`) is a client's own (client credentials): `userId` null.
 *
 * A resource server checks the same token on each of its requests, and the signature check is
 * most of the cost (an ES256 verify through WebCrypto). So the verifier remembers, for up to
 * `maxEntries` tokens (the oldest forgotten first), that a token verified for an audience: while
 * the ring publishes the same key set (`ring.jwks()` answers the same document), the token is not
 * verified again, only its `exp` against the clock (with the same tolerance) and the scopes each
 * call asks for. Nothing that failed is remembered, and a change of the published keys (one added
 * or retired) forgets every token, so a retired key's tokens are checked against the new set.
 * RFC 9068 tokens are not looked up in a store on use, remembered or not: revoking a grant stops
 * its refresh tokens and introspection, and its access tokens run out within their lifetime.
 *
 * `fullCheck` is the check a token not remembered goes through (`verifyAccessToken`; a test counts
 * the calls through its own).
 */
export function createRingVerifier(
  ctx: Pick<ProviderContext, "ring" | "issuer" | "now">,
  maxEntries = VERIFIED_TOKENS_MAX_ENTRIES,
  fullCheck: typeof verifyAccessToken = verifyAccessToken,
): RingVerifier {
  let remembered = new Map<string, VerifiedAccessToken>();
  let keysOf: object | undefined;
  const verify = async (token: string, check: { audience: string; scopes?: readonly string[] }) => {
    const keys = await ctx.ring.jwks();
    if (keys !== keysOf) {
      remembered = new Map();
      keysOf = keys;
    }
    // A token that verifies has no line break (three base64url parts), so a remembered pair splits one way only.
    const key = `${token}\n${check.audience}`;
    const now = ctx.now();
    let verified = remembered.get(key);
    // jose's rule for `exp`: expired once `exp <= now - tolerance`.
    if (verified !== undefined && verified.expiresAt <= now - CLOCK_TOLERANCE_SECONDS * 1000) {
      remembered.delete(key);
      verified = undefined;
    }
    if (verified === undefined) {
      verified = await fullCheck(token, { issuer: ctx.issuer, audience: check.audience, keys, now });
      // Remembered only while `keys` is still the published set: another call may have seen a new one meanwhile.
      if (maxEntries > 0 && keys === keysOf) {
        if (remembered.size >= maxEntries) remembered.delete(remembered.keys().next().value as string);
        remembered.set(key, verified);
      }
    }
    requireScopes(verified.scopes, check.scopes);
    return {
      subject: verified.subject,
      userId: typeof verified.claims.gid === "string" ? verified.subject : null,
      clientId: verified.clientId,
      scopes: [...verified.scopes],
      audience: [...verified.audience],
      expiresAt: verified.expiresAt,
    };
  };
  return Object.defineProperty(verify, "size", { get: () => remembered.size }) as RingVerifier;
}
