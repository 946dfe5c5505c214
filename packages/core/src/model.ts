import type { MembershipRead } from "./ports/organization-store.js";
import type { TwoFactorMethod, UserRecord } from "./ports/user-store.js";
import { boundedMemo } from "./support/bounded-memo.js";

/** What the caller knows about the request a use case runs for; all optional. */
export interface RequestContext {
  ip?: string | undefined;
  /**
   * Set by the HTTP layer when `ip` is loopback but the request carries a proxy's forwarding
   * header while `trustProxy` is 0: a proxy in front, so per-IP limits count `ip` (docs/limits.md).
   */
  untrustedProxy?: boolean | undefined;
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
  /**
   * Set when the session is an impersonation of the user (`admin.impersonate`, `host.impersonate`):
   * who started it. Such a principal cannot step up nor use the back office (`admin.*` and its
   * routes): `IMPERSONATION_NOT_ALLOWED`.
   */
  readonly impersonatedBy?: string;
  /**
   * The organization the access token was signed for (`POST /organizations/:id/activate`), or
   * null. It only names the organization: every permission check reads the membership anew.
   */
  readonly activeOrganizationId: string | null;
  /**
   * Set when the request came with an API key (`pc_…`, docs/api-keys.md) instead of an access
   * token: which key, and for an organization's key its organization and permissions. Such a
   * principal passes the host's `requireAuth` and `requirePermission` but no auth route
   * (`API_KEY_NOT_ALLOWED`). `sessionId` is then `api-key:<id>`, no session.
   */
  readonly apiKey: PrincipalApiKey | null;
  readonly [principalBrand]: true;
}

/** The API key a principal authenticated with (`Principal.apiKey`). */
export interface PrincipalApiKey {
  readonly id: string;
  /** The organization an organization's key acts for; null for a user's key. */
  readonly organizationId: string | null;
  /** An organization's key: the permissions it was given. Null for a user's key. */
  readonly permissions: readonly string[] | null;
}

/**
 * The run-time brand is a private field: an object literal or a copy cannot have it, and, unlike
 * a WeakSet of issued principals, it costs the garbage collector nothing on every request.
 */
class IssuedPrincipal {
  readonly #issued = true;
  /** The user's record as `authenticate` read it with the allowlist entry, and when (core clock, ms). */
  readonly #user: UserRecord | null | undefined;
  readonly #userReadAt: number;
  readonly userId: string;
  readonly sessionId: string;
  declare readonly impersonatedBy?: string;
  /** The token's `org` claim; read through the getter, so a principal's own fields stay `userId`, `sessionId` (and `impersonatedBy`). */
  readonly #activeOrganizationId: string | null;
  /** The membership in the active organization, read with the allowlist entry (undefined: not read). */
  readonly #membership: MembershipRead | null | undefined;
  readonly #apiKey: PrincipalApiKey | null;

  constructor(
    userId: string,
    sessionId: string,
    impersonatedBy?: string,
    read?: UserRead,
    activeOrganizationId?: string,
    apiKey?: PrincipalApiKey,
  ) {
    this.userId = userId;
    this.#apiKey =
      apiKey === undefined
        ? null
        : Object.freeze({
            ...apiKey,
            permissions: apiKey.permissions === null ? null : Object.freeze([...apiKey.permissions]),
          });
    this.sessionId = sessionId;
    if (impersonatedBy !== undefined) this.impersonatedBy = impersonatedBy;
    this.#activeOrganizationId = activeOrganizationId ?? null;
    this.#user = read?.user;
    this.#userReadAt = read?.at ?? 0;
    this.#membership = activeOrganizationId === undefined ? undefined : read?.membership;
    Object.freeze(this);
  }

  get activeOrganizationId(): string | null {
    return this.#activeOrganizationId;
  }

  get apiKey(): PrincipalApiKey | null {
    return this.#apiKey;
  }

  static isIssued(value: object): boolean {
    return #issued in value;
  }

  static userRead(principal: IssuedPrincipal): UserRead | undefined {
    return principal.#user === undefined ? undefined : { user: principal.#user, at: principal.#userReadAt };
  }

  static membershipRead(principal: IssuedPrincipal): PrincipalMembershipRead | undefined {
    const membership = principal.#membership;
    const organizationId = principal.#activeOrganizationId;
    if (membership === undefined || organizationId === null) return undefined;
    return { organizationId, membership, at: principal.#userReadAt };
  }
}

/**
 * A user's record (null: there was none) read at `at` (milliseconds of the core's clock), and,
 * when read in the same lookup, the user's membership in the token's active organization (null:
 * not a member).
 */
export interface UserRead {
  user: UserRecord | null;
  at: number;
  membership?: MembershipRead | null;
}

/** The membership in the principal's active organization as `authenticate` read it, and when. */
export interface PrincipalMembershipRead {
  organizationId: string;
  /** Null: the user was not a member (or the organization was gone). */
  membership: MembershipRead | null;
  /** Milliseconds of the core's clock. */
  at: number;
}

/**
 * A principal for a verified access token or a session just started. `read`: the user's record
 * (and the membership in `activeOrganizationId`), when `authenticate` read it in the same lookup
 * as the allowlist entry (kept out of sight: private fields, never enumerated or copied).
 * `activeOrganizationId`: the token's `org` claim.
 */
export function issuePrincipal(
  userId: string,
  sessionId: string,
  impersonatedBy?: string,
  read?: UserRead,
  activeOrganizationId?: string,
): Principal {
  return new IssuedPrincipal(
    userId,
    sessionId,
    impersonatedBy,
    read,
    activeOrganizationId,
  ) as unknown as Principal;
}

/** The principal of a valid API key: its user (a user's key) or creator, and the key. */
export function issueApiKeyPrincipal(userId: string, apiKey: PrincipalApiKey): Principal {
  return new IssuedPrincipal(
    userId,
    `api-key:${apiKey.id}`,
    undefined,
    undefined,
    apiKey.organizationId ?? undefined,
    apiKey,
  ) as unknown as Principal;
}

/** The user's record read together with the principal's allowlist entry, if it was. */
export function principalUserRead(principal: Principal): UserRead | undefined {
  return IssuedPrincipal.userRead(principal as unknown as IssuedPrincipal);
}

/**
 * The membership in the principal's active organization, when `authenticate` read it together
 * with the allowlist entry (`stores.joint.findAllowedAccessTokenWithMembership`).
 */
export function principalMembershipRead(principal: Principal): PrincipalMembershipRead | undefined {
  return IssuedPrincipal.membershipRead(principal as unknown as IssuedPrincipal);
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
  /**
   * The CAPTCHA token a widget produced (`captchaToken` in the body or `X-Captcha-Token`), for the
   * routes the `captcha` option protects.
   */
  captchaToken?: string | undefined;
  /**
   * Who acts, for a trusted host operation (`host.*`): named as `actor` in the events of those
   * that name one (e.g. `"support:jane"`); without it they say `"host"`. The back office
   * (`admin.*`) ignores it: its actor is always the principal's user.
   */
  actor?: string | undefined;
}

/**
 * How a trusted host operation (`auth.host.*`) is called: by the host's own code, never for a
 * request's caller. It checks no caller, so it takes no principal (one passed anyway is refused
 * with a `TypeError`): a request's principal goes to the back office, `auth.admin.*`.
 */
export interface HostCall {
  /** Who acts, named as `actor` in the events of those that name one; default `"host"`. */
  actor?: string | undefined;
  /** What is known about the request the host acts for, if any: IP, user agent, locale. */
  request?: RequestContext | undefined;
  /** Never: host operations check no caller. Forward a request's principal to `auth.admin.*`. */
  principal?: never;
  /** Never: host operations need no step-up. */
  stepUpToken?: never;
}

/** Who a user is and how they sign in, as `User` and the account export (`AccountExport`) show it. */
export interface UserAccount {
  id: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  hasPassword: boolean;
  identityProviders: string[];
}

/** A user as clients see it: never a password hash, TOTP secret or token. */
export interface User extends UserAccount {
  twoFactorMethods: TwoFactorMethod[];
  preferredTwoFactorMethod: TwoFactorMethod | null;
  /** ISO 8601. */
  createdAt: string;
  /** Only in `/me` of an admin's impersonation session (`admin.impersonate`): who started it. */
  impersonatedBy?: string;
  /**
   * Only in `/me`, and only while `organizations` is configured: the organization the access
   * token works in (`POST /organizations/:id/activate`) with the member's role and permissions,
   * read now; null when none (or the membership is gone).
   */
  activeOrganization?: { id: string; slug: string; role: string; permissions: string[] } | null;
  /**
   * Only in `/me`, and only while the back office is configured (`admin.authorize`): whether
   * `admin.authorize` allows the caller (false for an impersonation, a locked account, or when it
   * throws). The back office's routes still ask for a step-up.
   */
  isAdmin?: boolean;
}

/** The record's `UserAccount` fields (the account export): `toUser` less its two-factor fields and date. */
export function toUserAccount(record: UserRecord): UserAccount {
  const {
    twoFactorMethods: _methods,
    preferredTwoFactorMethod: _preferred,
    createdAt: _at,
    ...account
  } = toUser(record);
  return account;
}

export function toUser(record: UserRecord): User {
  // Each field written out, no spread of another object: on Node 20 a spread followed by more keys
  // takes a slow path, and GET /me answers this on every request (such a spread made it the largest
  // self time of the core's handler in bench/cache-gain.mjs).
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

/** A user as the back office sees it (`admin.listUsers`, `admin.getUser`): the `User` and its account state. */
export interface AdminUser extends User {
  /** Set while an admin has the account locked (`admin.lockUser`). */
  lock: { /** ISO 8601. */ at: string; reason: string | null; by: string | null } | null;
  /** The next password sign-in must set a new password first (`admin.requirePasswordChange`). */
  passwordChangeRequired: boolean;
  /** ISO 8601; null when the account never signed in (or its store keeps no sign-ins). */
  lastSignInAt: string | null;
}

export function toAdminUser(record: UserRecord): AdminUser {
  return {
    ...toUser(record),
    lock:
      record.lockedAt == null
        ? null
        : { at: isoDate(record.lockedAt), reason: record.lockReason ?? null, by: record.lockedBy ?? null },
    passwordChangeRequired: record.passwordChangeRequired === true,
    lastSignInAt: record.lastSignInAt == null ? null : isoDate(record.lastSignInAt),
  };
}

/** A session as the back office sees it: no `current`, and who started it when it is an impersonation. */
export interface AdminSessionInfo extends Omit<SessionInfo, "current"> {
  impersonatedBy: string | null;
}

/** `admin.getUser`: the user, their account state, sessions, sign-in methods. */
export interface AdminUserDetail {
  user: AdminUser;
  /** Live sessions, most recently active first. */
  sessions: AdminSessionInfo[];
  /** Linked identity providers. */
  identities: { provider: string; email: string | null /** ISO 8601. */; linkedAt: string }[];
  /** Turned-on second factors, as in `user.twoFactorMethods`. */
  twoFactorMethods: TwoFactorMethod[];
  /** The user's passkeys (`{ id, name, createdAt }`); empty without a passkey store. */
  passkeys: { id: string; name: string | null; createdAt: string }[];
}
