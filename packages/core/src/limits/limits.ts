import { createHash } from "node:crypto";
import { CooldownError } from "../errors.js";
import type { SecurityEvents, SecurityEventType } from "../events.js";
import {
  DEFAULT_MAX_OUTSTANDING_CHALLENGES,
  PASSKEY_CHALLENGE_KEPT_MS,
} from "../options/webauthn-options.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import { ipBucket } from "./client-ip.js";
import {
  type CountingHit,
  createThrottle,
  type Throttle,
  type ThrottleAttempt,
  type ThrottleCode,
  UNCOUNTED,
} from "./throttle.js";

/** The per-IP limits of the `ipLimits` option. */
export type IpLimitName =
  | "failedLogins"
  | "wrongTwoFactorCodes"
  | "registrations"
  | "passwordResetRequests"
  | "verificationSends"
  | "invalidTokens"
  | "emailSignInRequests"
  | "passkeySignInStarts"
  | "ssoSignInStarts";

/** The options the limits are built from (see `AuthOptions`). */
export interface LimitOptions {
  loginThrottle: {
    freeAttempts: number;
    windowSeconds: number;
    baseLockSeconds: number;
    maxLockSeconds: number;
  };
  twoFactor: { maxFailedAttempts: number; lockoutSeconds: number };
  ipLimits: { enabled: boolean } & Record<IpLimitName, { max: number; windowSeconds: number }>;
  emailSignIn: { ttlSeconds: number; maxWrongCodes: number };
  webauthn?: { maxOutstandingChallenges?: number | undefined } | undefined;
}

const IP_LIMITS: Record<IpLimitName, { code: ThrottleCode; onSuccess: "refund" | "keep" }> = {
  failedLogins: { code: "LOGIN_THROTTLED", onSuccess: "refund" },
  wrongTwoFactorCodes: { code: "TWO_FACTOR_THROTTLED", onSuccess: "refund" },
  registrations: { code: "RATE_LIMITED", onSuccess: "keep" },
  passwordResetRequests: { code: "RATE_LIMITED", onSuccess: "keep" },
  verificationSends: { code: "RATE_LIMITED", onSuccess: "keep" },
  invalidTokens: { code: "RATE_LIMITED", onSuccess: "refund" },
  emailSignInRequests: { code: "RATE_LIMITED", onSuccess: "keep" },
  passkeySignInStarts: { code: "RATE_LIMITED", onSuccess: "keep" },
  ssoSignInStarts: { code: "RATE_LIMITED", onSuccess: "keep" },
};

/** Who an attempt is for, as security events report it. */
export interface AttemptContext {
  userId?: string | null | undefined;
  ip?: string | undefined;
  /** A loopback `ip` behind a proxy `trustProxy` does not name: counted per IP (see `RequestContext`). */
  untrustedProxy?: boolean | undefined;
  userAgent?: string | undefined;
}

export interface Limits {
  /**
   * Counts a login's password check of a normalized address before it runs; `LOGIN_THROTTLED` and a `login.throttled` event when refused.
   * `hit`, when given, counts instead of the store's own `hit` (`Throttle.attempt`).
   */
  password(address: string, who: AttemptContext, hit?: CountingHit): Promise<ThrottleAttempt>;
  /** Forgets an address's failures and lock: its owner proved it another way (a password reset). */
  clearPassword(address: string): Promise<void>;
  /**
   * Counts a login's password check for the account `userId` from a browser that account knows
   * (`deviceId` of its device token), in a budget of that pair instead of the address's: the same
   * rules as `password` (`loginThrottle`), `LOGIN_THROTTLED` and a `login.throttled` event
   * (reason `device`) when refused. A right password clears only this pair's budget.
   * `passwordHash` is the account's stored hash: the budget is that password's, so a new password
   * (a reset, a change) starts every browser of the account afresh. Device tokens live in the
   * browsers only, so the pairs cannot be listed and cleared one by one.
   */
  knownDevicePassword(
    userId: string,
    deviceId: string,
    passwordHash: string | null,
    who: AttemptContext,
  ): Promise<ThrottleAttempt>;
  /**
   * Counts a signed-in session's password check (step-up, password change) in that session's own
   * budget, keyed by its id: the same rules as `password` (`loginThrottle`), `LOGIN_THROTTLED` and
   * a `login.throttled` event (reason `session`) when refused. Failed logins on the address (anyone
   * can make them) never block its signed-in owner; a right password clears this session's budget.
   */
  sessionPassword(sessionId: string, who: AttemptContext): Promise<ThrottleAttempt>;
  /**
   * Counts a second-factor code (TOTP, emailed, recovery) of an account before it is checked;
   * `TWO_FACTOR_THROTTLED` and a `two_factor.throttled` event when refused.
   */
  twoFactor(userId: string, who: AttemptContext): Promise<ThrottleAttempt>;
  /** Forgets an account's second-factor count and lock (the account is deleted). */
  clearTwoFactor(userId: string): Promise<void>;
  /**
   * Counts one request against a per-IP limit (`ip.limited` event and the limit's 429 when over
   * it). Loopback (unless `who.untrustedProxy`) and unknown IPs, and every IP when
   * `ipLimits.enabled` is false, pass uncounted.
   * `userId`, when given, is the event's (a copy of `who` with it is made only when counting).
   */
  ip(name: IpLimitName, who: AttemptContext, userId?: string): Promise<ThrottleAttempt>;
  /**
   * Counts an emailed sign-in code for a normalized address before it is checked (known and
   * unknown addresses alike): `emailSignIn.maxWrongCodes` in a window of the code's lifetime,
   * then `EMAIL_SIGN_IN_THROTTLED` and a `login.throttled` event (reason `email_code`) until the
   * window ends or `clearEmailSignInCodes` (a newer request) starts the count again.
   */
  emailSignInCode(address: string, who: AttemptContext): Promise<ThrottleAttempt>;
  /** Forgets an address's count of sign-in codes: a newer request mailed a new code. */
  clearEmailSignInCodes(address: string): Promise<void>;
  /**
   * Counts a passkey sign-in start (a challenge the store keeps 15 minutes) against one budget of
   * all clients together, `webauthn.maxOutstandingChallenges` per 15 minutes: past it, 429
   * `RATE_LIMITED` and an `ip.limited` event (reason `all:passkeyChallenges`) until the window
   * ends. Whatever the addresses, the store never keeps more than twice the budget of them.
   */
  passkeyChallenge(who: AttemptContext): Promise<ThrottleAttempt>;
}

/**
 * Which password a known browser's budget is for: 16 hex characters of the SHA-256 of the stored
 * hash (salted, so it tells nothing of the password), `none` without one. A new password is a new
 * budget.
 */
const passwordGeneration = (passwordHash: string | null) =>
  passwordHash === null ? "none" : createHash("sha256").update(passwordHash).digest("hex").slice(0, 16);

/** A throttle that locks a subject after its free attempts in the window; a success clears it. */
const lockingThrottle = (
  store: CooldownStore,
  name: string,
  code: ThrottleCode,
  limits: LimitOptions["loginThrottle"],
): Throttle =>
  createThrottle(store, {
    name,
    code,
    freeAttempts: limits.freeAttempts,
    windowMs: limits.windowSeconds * 1000,
    lock: { baseMs: limits.baseLockSeconds * 1000, maxMs: limits.maxLockSeconds * 1000 },
    onSuccess: "clear",
  });

/** One throttle per per-IP limit, with its budget from `ipLimits`. */
function ipThrottles(store: CooldownStore, ipLimits: LimitOptions["ipLimits"]): Map<IpLimitName, Throttle> {
  return new Map(
    (Object.keys(IP_LIMITS) as IpLimitName[]).map((name) => {
      const { max, windowSeconds } = ipLimits[name];
      return [
        name,
        createThrottle(store, {
          name: `ip:${name}`,
          freeAttempts: max,
          windowMs: windowSeconds * 1000,
          ...IP_LIMITS[name],
        }),
      ] as const;
    }),
  );
}

/** An attempt, with the event of `type` when the throttle refuses it. */
async function attemptWithEvent(
  events: SecurityEvents,
  throttle: Throttle,
  subject: string,
  type: SecurityEventType,
  reason: string,
  who: AttemptContext,
  hit?: CountingHit,
): Promise<ThrottleAttempt> {
  try {
    return await throttle.attempt(subject, hit);
  } catch (error) {
    if (error instanceof CooldownError) events.emit(type, { ...who, reason });
    throw error;
  }
}

export function createLimits(options: LimitOptions, store: CooldownStore, events: SecurityEvents): Limits {
  const { loginThrottle, twoFactor, ipLimits, emailSignIn } = options;
  const perIp = ipThrottles(store, ipLimits);
  const password = lockingThrottle(store, "password", "LOGIN_THROTTLED", loginThrottle);
  const knownDevice = lockingThrottle(store, "password-device", "LOGIN_THROTTLED", loginThrottle);
  const session = lockingThrottle(store, "password-session", "LOGIN_THROTTLED", loginThrottle);
  // One fixed lockout: the window, the first lock and the longest lock are all `lockoutSeconds`.
  const secondFactor = lockingThrottle(store, "two-factor", "TWO_FACTOR_THROTTLED", {
    freeAttempts: twoFactor.maxFailedAttempts,
    windowSeconds: twoFactor.lockoutSeconds,
    baseLockSeconds: twoFactor.lockoutSeconds,
    maxLockSeconds: twoFactor.lockoutSeconds,
  });

  // A fixed window as long as a code lives: past the budget, every code is refused until it ends.
  const signInCodes = createThrottle(store, {
    name: "email-sign-in-code",
    code: "EMAIL_SIGN_IN_THROTTLED",
    freeAttempts: emailSignIn.maxWrongCodes,
    windowMs: emailSignIn.ttlSeconds * 1000,
    onSuccess: "clear",
  });

  // A fixed window as long as the store keeps a challenge, for everyone at once.
  const challenges = createThrottle(store, {
    name: "passkey-challenges",
    code: "RATE_LIMITED",
    freeAttempts: options.webauthn?.maxOutstandingChallenges ?? DEFAULT_MAX_OUTSTANDING_CHALLENGES,
    windowMs: PASSKEY_CHALLENGE_KEPT_MS,
    onSuccess: "keep",
  });

  const counted = (
    throttle: Throttle,
    subject: string,
    type: SecurityEventType,
    reason: string,
    who: AttemptContext,
    hit?: CountingHit,
  ) => attemptWithEvent(events, throttle, subject, type, reason, who, hit);

  return {
    password: (address, who, hit) => counted(password, address, "login.throttled", "address", who, hit),
    clearPassword: (address) => password.clear(address),
    knownDevicePassword: (userId, deviceId, passwordHash, who) =>
      counted(
        knownDevice,
        `${userId}:${deviceId}:${passwordGeneration(passwordHash)}`,
        "login.throttled",
        "device",
        who,
      ),
    sessionPassword: (sessionId, who) => counted(session, sessionId, "login.throttled", "session", who),
    twoFactor: (userId, who) => counted(secondFactor, userId, "two_factor.throttled", "account", who),
    clearTwoFactor: (userId) => secondFactor.clear(userId),
    emailSignInCode: (address, who) => counted(signInCodes, address, "login.throttled", "email_code", who),
    clearEmailSignInCodes: (address) => signInCodes.clear(address),
    passkeyChallenge: (who) => counted(challenges, "all", "ip.limited", "all:passkeyChallenges", who),
    async ip(name, who, userId) {
      const bucket = ipLimits.enabled ? ipBucket(who.ip, who.untrustedProxy === true) : null;
      const throttle = perIp.get(name);
      if (bucket === null || !throttle) return UNCOUNTED;
      const subject = userId === undefined ? who : { ...who, userId };
      return counted(throttle, bucket, "ip.limited", `ip:${name}`, subject);
    },
  };
}
