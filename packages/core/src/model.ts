import { boundedMemo } from "./bounded-memo.js";
import type { TwoFactorMethod, UserRecord } from "./ports/user-store.js";

/** What the caller knows about the request a use case runs for; all optional. */
export interface RequestContext {
  ip?: string | undefined;
  userAgent?: string | undefined;
  /** A resolved locale (see `Translator.resolveLocale`); the default locale when absent. */
  locale?: string | undefined;
  /**
   * The browser's device token (cookie `device_token` or header `X-Device-Token`), as a sign-in
   * handed it out: read by the sign-ins and `register` to know the browser (docs/security.md).
   */
  deviceToken?: string | undefined;
}

/** Brands principals: only `authenticate` (and `sessions.create`) make them. */
export declare const principalBrand: unique symbol;

/**
 * The authenticated caller of a request, as `auth.authenticate` returns it. Branded: an object
 * literal does not type-check as one, and the use cases refuse one they did not issue
 * (`AUTHENTICATION_REQUIRED`).
 */
export interface Principal {
  readonly userId: string;
  readonly sessionId: string;
  readonly [principalBrand]: true;
}

/**
 * The run-time brand is a private field: an object literal or a copy cannot have it, and, unlike
 * a WeakSet of issued principals, it costs the garbage collector nothing on every request.
 */
class IssuedPrincipal {
  readonly #issued = true;
  readonly userId: string;
  readonly sessionId: string;

  constructor(userId: string, sessionId: string) {
    this.userId = userId;
    this.sessionId = sessionId;
    Object.freeze(this);
  }

  static isIssued(value: object): boolean {
    return #issued in value;
  }
}

/** A principal for a verified access token or a session just started. */
export function issuePrincipal(userId: string, sessionId: string): Principal {
  return new IssuedPrincipal(userId, sessionId) as unknown as Principal;
}

/** True only for principals this process issued. */
export function isIssuedPrincipal(value: unknown): value is Principal {
  return typeof value === "object" && value !== null && IssuedPrincipal.isIssued(value);
}

/**
 * Who calls a use case and how: the first argument of every `Auth` method. Each method reads
 * only the fields it names in its TSDoc; the others are ignored.
 */
export interface Call {
  /** The signed-in caller, as `authenticate` or `sessions.create` issued it (no other is accepted). */
  principal?: Principal | undefined;
  /** The step-up token a security-settings change brings (`stepUp` gave it). */
  stepUpToken?: string | undefined;
  /**
   * The one credential the operation consumes: the access token (`authenticate`), the refresh
   * token (`refresh`), a login's or step-up's 2FA token, or an emailed link's token.
   */
  token?: string | undefined;
  /** What is known about the request: IP, user agent, locale. */
  request?: RequestContext | undefined;
}

/** A user as clients see it: never a password hash, TOTP secret or token. */
export interface User {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  hasPassword: boolean;
  identityProviders: string[];
  twoFactorMethods: TwoFactorMethod[];
  preferredTwoFactorMethod: TwoFactorMethod | null;
  /** ISO 8601. */
  createdAt: string;
}

export function toUser(record: UserRecord): User {
  return {
    id: record.id,
    email: record.email,
    emailVerified: record.emailVerified,
    name: record.name,
    hasPassword: record.passwordHash !== null,
    identityProviders: [...record.identityProviders],
    twoFactorMethods: [...record.twoFactor.methods],
    preferredTwoFactorMethod: record.twoFactor.preferredMethod,
    createdAt: isoDate(record.createdAt),
  };
}

/** Milliseconds as ISO 8601, remembered per value: GET /me formats the same few users' dates all day. */
const isoDate = boundedMemo(10_000, (ms: number) => new Date(ms).toISOString());

/** A session as its user sees it in the sessions list. */
export interface SessionInfo {
  id: string;
  browser: string | null;
  os: string | null;
  ip: string | null;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastActiveAt: string;
  /** True for the session of the access token that asked. */
  current: boolean;
}
