import { AuthError, CooldownError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import type { TokenRecord } from "../ports/single-use-token-store.js";
import type { TwoFactorMethod, UserRecord, UserStore } from "../ports/user-store.js";
import { CHALLENGE_PURPOSE } from "../tokens/purposes.js";
import { hashToken } from "../tokens/random.js";
import {
  consumeSingleUseToken,
  issueSingleUseToken,
  restoreToken,
  type TokenDeps,
} from "../tokens/single-use-token.js";
import { type EmailCodeDeps, sendEmailCode } from "./email-code.js";

/** What a 2FA token is for: finishing a login, or a step-up of an existing session. */
export type ChallengeKind = "login" | "step-up";

/** A started second-factor step: the 2FA token and what the client may offer. */
export interface TwoFactorChallenge {
  twoFactorAuthenticationToken: string;
  twoFactorMethods: TwoFactorMethod[];
  preferredTwoFactorMethod: TwoFactorMethod | null;
  /**
   * Whether this step mailed a code (email the preferred method): false when the 2FA-code
   * cooldown held it back (a code mailed within it, e.g. the one that turned email 2FA on, and
   * maybe already used) or the send failed.
   */
  emailCodeSent: boolean;
  /**
   * Seconds until a code can be mailed (again) with `POST /2fa/email/send`: the cooldown just
   * started by the code mailed now, what is left of the one that held it back, 0 after a failed
   * send. Null when no code was to be mailed (email is not the preferred method, or email is off).
   */
  emailCodeCooldown: number | null;
}

/** What mailing the step's code did: `emailCodeSent` and `emailCodeCooldown` of the challenge. */
async function mailChallengeCode(
  deps: ChallengeDeps,
  user: UserRecord,
  locale: string,
): Promise<Pick<TwoFactorChallenge, "emailCodeSent" | "emailCodeCooldown">> {
  if (user.twoFactor.preferredMethod !== "email" || !deps.emails.enabled) {
    return { emailCodeSent: false, emailCodeCooldown: null };
  }
  try {
    const { cooldown } = await sendEmailCode(deps, user, locale);
    return { emailCodeSent: true, emailCodeCooldown: cooldown };
  } catch (error) {
    if (error instanceof CooldownError && error.code === "EMAIL_COOLDOWN_ACTIVE") {
      return { emailCodeSent: false, emailCodeCooldown: error.remainingSeconds };
    }
    deps.logger.error(
      { event: "two_factor.email_failed", userId: user.id, err: String(error) },
      "could not mail the 2FA code",
    );
    return { emailCodeSent: false, emailCodeCooldown: 0 };
  }
}

export type ChallengeDeps = TokenDeps &
  EmailCodeDeps & {
    users: UserStore;
    options: EmailCodeDeps["options"] & { twoFactorTokenTtlSeconds: number };
  };

/**
 * Starts a second-factor step for a user with 2FA: stores a single-use 2FA token (hashed, at most
 * five minutes, bound to the user and this attempt) and, when email is the preferred method,
 * mails a code in the request's locale (under its own cooldown: a blocked send keeps the code
 * already mailed, and the answer says no code went out and when one can be asked for).
 */
export async function startChallenge(
  deps: ChallengeDeps,
  user: UserRecord,
  data: {
    kind: ChallengeKind;
    sessionId?: string;
    browser?: string | null;
    os?: string | null;
    /** A password step's verified hash: the 2FA token then holds only while the password does. */
    verifiedPasswordHash?: string;
    rememberMe?: boolean | undefined;
    /** The password step found the password in the breach corpus: the completed sign-in says so. */
    passwordBreached?: boolean | undefined;
    /**
     * The first step was a sign-in by email (`email`): the login's `login.succeeded` names it, and
     * the email method is not offered (the mailbox already was the first factor).
     */
    signIn?: "email";
  },
  locale: string,
): Promise<TwoFactorChallenge> {
  const token = await issueSingleUseToken(deps, {
    purpose: CHALLENGE_PURPOSE,
    userId: user.id,
    ttlMs: deps.options.twoFactorTokenTtlSeconds * 1000,
    data: {
      kind: data.kind,
      sessionId: data.sessionId ?? null,
      browser: data.browser ?? null,
      os: data.os ?? null,
      ...(data.verifiedPasswordHash === undefined
        ? {}
        : { passwordHash: passwordFingerprint(data.verifiedPasswordHash) }),
      ...(data.rememberMe === false ? { rememberMe: false } : {}),
      ...(data.passwordBreached === true ? { passwordBreached: true } : {}),
      ...(data.signIn ? { signIn: data.signIn } : {}),
    },
    failureCode: "DATABASE_FAILURE",
  });
  const offered = offeredMethods(user, data.signIn);
  const mailed = await mailChallengeCode(deps, offered, locale);
  return {
    twoFactorAuthenticationToken: token,
    twoFactorMethods: [...offered.twoFactor.methods],
    preferredTwoFactorMethod: offered.twoFactor.preferredMethod,
    ...mailed,
  };
}

/**
 * The user as a 2FA step sees them: after a sign-in by email (`signIn` of the 2FA token's data),
 * without the email method (preferred: the first method left). For checking codes and mailing
 * them only; the stored record is unchanged.
 */
export function offeredMethods(user: UserRecord, signIn: unknown): UserRecord {
  if (signIn !== "email") return user;
  const methods: TwoFactorMethod[] = user.twoFactor.methods.filter((method) => method !== "email");
  const preferredMethod =
    user.twoFactor.preferredMethod !== null && methods.includes(user.twoFactor.preferredMethod)
      ? user.twoFactor.preferredMethod
      : (methods[0] ?? null);
  return { ...user, twoFactor: { ...user.twoFactor, methods, preferredMethod } };
}

/**
 * What a 2FA token keeps of the password its step verified: a SHA-256 of the stored hash (never
 * the hash itself), enough to tell that the password changed since.
 */
const passwordFingerprint = (passwordHash: string) => hashToken(`password-step:${passwordHash}`);

/** A taken 2FA token, its user, and how to give it back. */
export interface TakenChallenge {
  record: TokenRecord;
  user: UserRecord;
  restore: () => Promise<void>;
  /**
   * Set when a password step started the challenge: the user's password hash, still the one that
   * step verified. Finishing the sign-in passes it on (`finishLogin`'s `verifiedPasswordHash`).
   */
  verifiedPasswordHash?: string;
}

/**
 * Takes the 2FA token for one attempt: consumed atomically (of concurrent attempts, one gets it),
 * and given back with `restore` when the code turns out wrong, so the user can type it again. A
 * token of a password step whose password has changed since (a reset or `setPassword` landed
 * between the two steps) is spent and refused: the reset ended every session, and the second
 * factor must not start a new one on the old password.
 */
export async function takeChallenge(
  deps: TokenDeps & { users: UserStore },
  token: string | undefined,
  kind: ChallengeKind | "any",
): Promise<TakenChallenge> {
  const taken = await consumeSingleUseToken(deps, CHALLENGE_PURPOSE, token);
  if (!taken || taken.expired) throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  const { record } = taken;
  const restore = () => restoreToken(deps, record);
  if (kind !== "any" && record.data?.kind !== kind) {
    await restore();
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  }
  let user: UserRecord | null;
  try {
    user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(record.userId));
  } catch (error) {
    await restore();
    throw error;
  }
  if (!user) throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  const verified = record.data?.passwordHash;
  if (typeof verified !== "string") return { record, user, restore };
  if (user.passwordHash === null || passwordFingerprint(user.passwordHash) !== verified) {
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  }
  return { record, user, restore, verifiedPasswordHash: user.passwordHash };
}

/** The browser and OS a login's password step stated, kept with its 2FA token. */
/** Whether the password step of a login asked to stay signed in (`rememberMe`); true unless it said false. */
export function statedRememberMe(data: TokenRecord["data"]): boolean {
  return data?.rememberMe !== false;
}

export function statedDevice(data: TokenRecord["data"]): { browser?: string; os?: string } | undefined {
  const browser = typeof data?.browser === "string" ? data.browser : undefined;
  const os = typeof data?.os === "string" ? data.os : undefined;
  return browser || os ? { ...(browser ? { browser } : {}), ...(os ? { os } : {}) } : undefined;
}

/** Whether the password step of a login found its password in the breach corpus (`passwordBreached`). */
export function statedPasswordBreached(data: TokenRecord["data"]): boolean {
  return data?.passwordBreached === true;
}

/**
 * The user of the call's 2FA token (taken and given back at once: asking spends nothing), or undefined when no token
 * came, or when a principal came too and the token is refused or its user has no email 2FA.
 */
export async function challengeUser(
  ctx: TokenDeps & { users: UserStore },
  call: Pick<Call, "token" | "principal">,
): Promise<UserRecord | undefined> {
  if (call.token === undefined && call.principal !== undefined) return undefined;
  try {
    const challenge = await takeChallenge(ctx, call.token, "any");
    await challenge.restore();
    // After a sign-in by email, the step offers no email method: no code is mailed for it.
    const offered = offeredMethods(challenge.user, challenge.record.data?.signIn);
    if (call.principal === undefined || offered.twoFactor.methods.includes("email")) return offered;
  } catch (error) {
    if (call.principal === undefined) throw error;
    if (!(error instanceof AuthError) || error.code !== "TWO_FACTOR_TOKEN_INVALID") throw error;
  }
  return undefined;
}
