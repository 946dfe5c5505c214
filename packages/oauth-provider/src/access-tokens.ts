import { randomBytes } from "node:crypto";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import type { SigningKeyRing } from "./signing-keys.js";

/** What an RFC 9068 access token says. */
export interface AccessTokenGrant {
  /** The provider's issuer identifier (`iss`). */
  issuer: string;
  /** The user's id, or the client's for a client-credentials token (`sub`). */
  subject: string;
  /** The resource servers it is for (`aud`): the RFC 8707 `resource`s, or the client's id. */
  audience: string | readonly string[];
  /** The client it was issued to (`client_id`). */
  clientId: string;
  /** The scopes granted (`scope`, space-separated in the token). */
  scopes: readonly string[];
  /** Its lifetime in seconds. */
  expiresInSeconds: number;
  /** When it is issued (ms since the epoch). */
  now: number;
  /**
   * The grant it came from, when it has one (`gid`): introspection and revocation find the grant
   * by it, so a revoked grant's access tokens introspect as inactive.
   */
  grantId?: string | undefined;
}

/** Seconds of clock difference `verifyAccessToken` allows on `exp`, `iat` and `nbf` unless told otherwise. */
export const CLOCK_TOLERANCE_SECONDS = 5;

/** The JWS algorithms an access token may carry; anything else (`none`, HMAC) is refused. */
export const ACCESS_TOKEN_ALGORITHMS = ["ES256", "EdDSA", "Ed25519"];

/**
 * An RFC 9068 JWT access token: header `typ: at+jwt` and the signing key's `kid`; claims `iss`,
 * `sub`, `aud`, `client_id`, `scope`, `iat`, `exp` and a random `jti`.
 */
export async function issueAccessToken(ring: SigningKeyRing, grant: AccessTokenGrant): Promise<string> {
  const key = await ring.signingKey();
  const issuedAt = Math.floor(grant.now / 1000);
  const claims = { client_id: grant.clientId, scope: grant.scopes.join(" ") };
  return new SignJWT(grant.grantId === undefined ? claims : { ...claims, gid: grant.grantId })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "at+jwt" })
    .setIssuer(grant.issuer)
    .setSubject(grant.subject)
    .setAudience(typeof grant.audience === "string" ? grant.audience : [...grant.audience])
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + grant.expiresInSeconds)
    .setJti(randomBytes(16).toString("base64url"))
    .sign(key.privateKey);
}

/** Why an access token was refused: RFC 6750's `invalid_token` or `insufficient_scope`. */
export class AccessTokenError extends Error {
  readonly code: "invalid_token" | "insufficient_scope";
  constructor(code: AccessTokenError["code"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AccessTokenError";
    this.code = code;
  }
}

export interface VerifyAccessTokenOptions {
  /** The provider's issuer identifier: the token's `iss` must be it. */
  issuer: string;
  /** This resource server's identifier: the token's `aud` must name it. */
  audience: string;
  /** Scopes the call needs: each must be among the token's (`insufficient_scope` otherwise). */
  scopes?: readonly string[];
  /**
   * The provider's public keys: its JWKS document, or the URL of `<prefix>/oauth2/jwks` (fetched
   * and cached by `jose`, fetched again for an unknown `kid`).
   */
  keys: JSONWebKeySet | URL;
  /** Seconds of clock difference allowed on `exp`, `iat` and `nbf`. Default `CLOCK_TOLERANCE_SECONDS` (5). */
  clockToleranceSeconds?: number;
  /** The current time (ms); default the system clock. */
  now?: number;
}

/** An access token that verified: who it is for, for which client, with which scopes. */
export interface VerifiedAccessToken {
  subject: string;
  clientId: string;
  scopes: string[];
  audience: string[];
  /** ms since the epoch. */
  expiresAt: number;
  jti: string | undefined;
  claims: JWTPayload;
}

/** Throws `insufficient_scope` unless each of `needed` is among `granted`. */
export function requireScopes(granted: readonly string[], needed: readonly string[] = []): void {
  const missing = needed.filter((scope) => !granted.includes(scope));
  if (missing.length > 0)
    throw new AccessTokenError("insufficient_scope", `the access token lacks ${missing.join(" ")}`);
}

const keySets = new WeakMap<object, ReturnType<typeof createLocalJWKSet>>();
const remoteSets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/**
 * One `jose` key set per JWKS document or URL, so a remote one is fetched once and cached, and a
 * local one's keys are imported once per document (the ring answers the same document while its
 * keys stay).
 */
export function keySetOf(keys: JSONWebKeySet | URL) {
  if (keys instanceof URL) {
    let set = remoteSets.get(keys.href);
    if (!set) {
      set = createRemoteJWKSet(keys);
      remoteSets.set(keys.href, set);
    }
    return set;
  }
  let set = keySets.get(keys);
  if (!set) {
    set = createLocalJWKSet(keys);
    keySets.set(keys, set);
  }
  return set;
}

/**
 * Verifies an RFC 9068 access token for a resource server with the provider's public keys
 * alone (no secret of the provider's): the signature by a key of the JWKS named by the token's
 * `kid`, an asymmetric algorithm, `typ: at+jwt`, `iss`, `aud` naming this server, `exp`, and the
 * scopes asked for. Throws `AccessTokenError` (`invalid_token`, or `insufficient_scope` when
 * only the scopes fall short).
 * @example
 * ```ts
 * import { AccessTokenError, verifyAccessToken } from "@portcullis/oauth-provider";
 *
 * async function projectsOf(authorization: string | undefined) {
 *   try {
 *     const token = await verifyAccessToken(authorization?.replace(/^Bearer /, "") ?? "", {
 *       issuer: "https://app.example.com/api/auth",
 *       audience: "https://api.example.com",
 *       scopes: ["projects:read"],
 *       keys: new URL("https://app.example.com/api/auth/oauth2/jwks"),
 *     });
 *     return { status: 200, userId: token.subject };
 *   } catch (error) {
 *     if (error instanceof AccessTokenError) return { status: error.code === "insufficient_scope" ? 403 : 401 };
 *     throw error;
 *   }
 * }
 * ```
 */
export async function verifyAccessToken(
  token: string,
  options: VerifyAccessTokenOptions,
): Promise<VerifiedAccessToken> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySetOf(options.keys), {
      issuer: options.issuer,
      audience: options.audience,
      typ: "at+jwt",
      algorithms: ACCESS_TOKEN_ALGORITHMS,
      clockTolerance: options.clockToleranceSeconds ?? CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["sub", "client_id", "exp", "iat"],
      ...(options.now === undefined ? {} : { currentDate: new Date(options.now) }),
    }));
  } catch (error) {
    const reason = error instanceof errors.JOSEError ? error.code : "ERR_INVALID";
    throw new AccessTokenError("invalid_token", `the access token is not valid (${reason})`, {
      cause: error,
    });
  }
  const scopes = typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [];
  requireScopes(scopes, options.scopes);
  return {
    subject: String(payload.sub),
    clientId: String(payload.client_id),
    scopes,
    audience: typeof payload.aud === "string" ? [payload.aud] : [...(payload.aud ?? [])],
    expiresAt: Number(payload.exp) * 1000,
    jti: payload.jti,
    claims: payload,
  };
}
