import { createHash } from "node:crypto";
import { SignJWT } from "jose";
import type { SigningKeyRing } from "./signing-keys.js";

/** The user fields an ID token and the userinfo endpoint may carry. */
export interface ClaimsUser {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
}

/**
 * The OpenID Connect claims of `user` the granted `scopes` allow (OIDC Core §5.4): `sub` always;
 * `email` and `email_verified` with `email`; `name` with `profile`, when the user has one. The
 * ID token and the userinfo response both carry these.
 */
export function userClaims(user: ClaimsUser, scopes: readonly string[]): Record<string, unknown> {
  const claims: Record<string, unknown> = { sub: user.id };
  if (scopes.includes("email")) {
    claims.email = user.email;
    claims.email_verified = user.emailVerified;
  }
  if (scopes.includes("profile") && user.name !== null) claims.name = user.name;
  return claims;
}

/** What an ID token says. */
export interface IdTokenContent {
  /** The provider's issuer identifier (`iss`). */
  issuer: string;
  /** The client it is for (`aud`). */
  clientId: string;
  /** The user's claims, `sub` included (`userClaims`). */
  claims: Record<string, unknown>;
  /** The authorization request's `nonce`, repeated as it came. */
  nonce?: string;
  /** When the user last signed in (ms since the epoch), written as `auth_time` in seconds. */
  authTime?: number;
  /** The access token issued with it, whose hash becomes `at_hash`. */
  accessToken?: string;
  /** Its lifetime in seconds. */
  expiresInSeconds: number;
  /** When it is issued (ms since the epoch). */
  now: number;
}

/**
 * The hash function of an `at_hash` for a JWS algorithm (OIDC Core §3.1.3.6: the one of the
 * algorithm's own hash). EdDSA has no hash of its own in its name; SHA-512, the hash inside
 * Ed25519, is what OpenID relying parties compute for it (`oauth4webapi`, under `openid-client`
 * 6, does so for `EdDSA` and `Ed25519`).
 */
function hashOfAlgorithm(alg: string): "sha256" | "sha512" {
  if (alg === "ES256") return "sha256";
  if (alg === "EdDSA" || alg === "Ed25519") return "sha512";
  throw new TypeError(`no at_hash is defined here for the algorithm ${alg}`);
}

/**
 * An `at_hash` (OIDC Core §3.1.3.6): the left half of the hash of the access token's ASCII
 * bytes, base64url, with the hash of the ID token's signing algorithm.
 */
export function accessTokenHash(accessToken: string, alg: string): string {
  const digest = createHash(hashOfAlgorithm(alg)).update(accessToken, "ascii").digest();
  return digest.subarray(0, digest.length / 2).toString("base64url");
}

/**
 * An OpenID Connect ID token (OIDC Core §2), signed by the ring's current key like an access
 * token but with header `typ: JWT`: the given claims (`sub` required) and `iss`, `aud` (the
 * client), `iat`, `exp`, with `nonce`, `auth_time` (seconds) and `at_hash` when given. `iss`,
 * `aud`, `iat` and `exp` are always the provider's, whatever `claims` holds.
 */
export async function issueIdToken(ring: SigningKeyRing, token: IdTokenContent): Promise<string> {
  const subject = token.claims.sub;
  if (typeof subject !== "string" || subject === "") throw new TypeError("an ID token needs a sub claim");
  const key = await ring.signingKey();
  const issuedAt = Math.floor(token.now / 1000);
  const payload: Record<string, unknown> = { ...token.claims };
  if (token.nonce !== undefined) payload.nonce = token.nonce;
  if (token.authTime !== undefined) payload.auth_time = Math.floor(token.authTime / 1000);
  if (token.accessToken !== undefined) payload.at_hash = accessTokenHash(token.accessToken, key.alg);
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
    .setIssuer(token.issuer)
    .setSubject(subject)
    .setAudience(token.clientId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + token.expiresInSeconds)
    .sign(key.privateKey);
}
