import { randomInt } from "node:crypto";
import { z } from "zod";
import type { AuthContext, RequestContext } from "../context.js";
import { AuthError, guardPort, ValidationError } from "../errors.js";
import type { TokenRecord } from "../ports/session-store.js";
import type { TwoFactorMethod, UserRecord } from "../ports/user-store.js";
import { hashToken } from "../tokens/random.js";
import { consumeSingleUseToken, issueSingleUseToken, restoreToken } from "../tokens/single-use-token.js";
import { sendWithCooldown } from "../use-cases/email-flow.js";
import { sessionField } from "../validation.js";
import { matchTotp, TOTP_REPLAY_WINDOW_MS } from "./totp.js";

export const CHALLENGE_PURPOSE = "two-factor-challenge";
export const EMAIL_CODE_PURPOSE = "two-factor-email-code";

/** What a 2FA token is for: finishing a login, or a step-up of an existing session. */
export type ChallengeKind = "login" | "step-up";

/** A started second-factor step: the 2FA token and what the client may offer. */
export interface TwoFactorChallenge {
  twoFactorAuthenticationToken: string;
  twoFactorMethods: TwoFactorMethod[];
  preferredTwoFactorMethod: TwoFactorMethod | null;
}

/** `{ code, method?, session? }` of the second-factor routes; a missing code is `TWO_FACTOR_CODE_MISSING`. */
const codeInput = z.object({
  code: z.string().max(64).optional(),
  method: z.enum(["totp", "email"]).optional(),
  session: sessionField,
});

export function parseCodeInput(input: unknown): z.output<typeof codeInput> & { code: string } {
  const result = codeInput.safeParse(input ?? {});
  if (!result.success) {
    throw new ValidationError(
      result.error.issues.map((issue) => ({
        path: issue.path.map(String).join(".") || "(body)",
        message: issue.message,
      })),
    );
  }
  const code = result.data.code?.replace(/[\s-]/g, "") ?? "";
  if (code === "") throw new AuthError("TWO_FACTOR_CODE_MISSING");
  return { ...result.data, code };
}

/**
 * Starts a second-factor step for a user with 2FA: stores a single-use 2FA token (hashed, at most
 * five minutes, bound to the user and this attempt) and, when email is the preferred method,
 * mails a code in the request's locale (under its own cooldown: a blocked send keeps the code
 * already mailed).
 */
export async function startChallenge(
  ctx: AuthContext,
  user: UserRecord,
  data: { kind: ChallengeKind; sessionId?: string; browser?: string | null; os?: string | null },
  locale: string,
): Promise<TwoFactorChallenge> {
  const token = await issueSingleUseToken(ctx, {
    purpose: CHALLENGE_PURPOSE,
    userId: user.id,
    ttlMs: ctx.options.twoFactorTokenTtlSeconds * 1000,
    data: {
      kind: data.kind,
      sessionId: data.sessionId ?? null,
      browser: data.browser ?? null,
      os: data.os ?? null,
    },
    failureCode: "DATABASE_FAILURE",
  });
  if (user.twoFactor.preferredMethod === "email" && ctx.emails.enabled) {
    await sendEmailCode(ctx, user, locale).catch((error: unknown) => {
      if (error instanceof AuthError && error.code === "EMAIL_COOLDOWN_ACTIVE") return;
      ctx.logger.error(
        { event: "two_factor.email_failed", userId: user.id, err: String(error) },
        "could not mail the 2FA code",
      );
    });
  }
  return {
    twoFactorAuthenticationToken: token,
    twoFactorMethods: [...user.twoFactor.methods],
    preferredTwoFactorMethod: user.twoFactor.preferredMethod,
  };
}

/**
 * Takes the 2FA token for one attempt: consumed atomically (of concurrent attempts, one gets it),
 * and given back with `restore` when the code turns out wrong, so the user can type it again.
 */
export async function takeChallenge(
  ctx: AuthContext,
  token: string | undefined,
  kind: ChallengeKind | "any",
): Promise<{ record: TokenRecord; user: UserRecord; restore: () => Promise<void> }> {
  const taken = await consumeSingleUseToken(ctx, CHALLENGE_PURPOSE, token);
  if (!taken || taken.expired) throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  const { record } = taken;
  if (kind !== "any" && record.data?.kind !== kind) {
    await restoreToken(ctx, record, 0);
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  }
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(record.userId));
  if (!user) throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  return { record, user, restore: () => restoreToken(ctx, record, 0) };
}

/**
 * Checks a TOTP or emailed code for the user. The attempt is counted per account (and per IP)
 * before the code is looked at, so concurrent guesses get no more checks than sequential ones;
 * a right code clears the account's count. A TOTP code is accepted once (its time step is
 * claimed atomically, so a replay fails even in a new login); an emailed code is single use.
 * Wrong codes throw `WRONG_TWO_FACTOR_CODE`.
 */
export async function checkSecondFactor(
  ctx: AuthContext,
  user: UserRecord,
  method: TwoFactorMethod | undefined,
  code: string,
  request: RequestContext,
): Promise<void> {
  const chosen = method ?? user.twoFactor.preferredMethod ?? undefined;
  if (!chosen || !user.twoFactor.methods.includes(chosen)) throw new AuthError("TWO_FACTOR_DISABLED");
  await checkCounted(ctx, user.id, request, () =>
    chosen === "totp"
      ? totpMatches(ctx, user.id, user.twoFactor.totpSecretEncrypted, code)
      : emailCodeMatches(ctx, user.id, code),
  );
}

/**
 * Runs one second-factor check under the account's and the IP's budgets: counted first, then
 * `matches`; `WRONG_TWO_FACTOR_CODE` when it does not, the counts cleared (account) and given
 * back (IP) when it does.
 */
export async function checkCounted(
  ctx: AuthContext,
  userId: string,
  request: RequestContext,
  matches: () => Promise<boolean>,
): Promise<void> {
  const who = { ...request, userId };
  const fromIp = await ctx.limits.ip("wrongTwoFactorCodes", who);
  const forAccount = await ctx.limits.twoFactor(userId, who);
  if (!(await matches())) {
    ctx.events.emit("two_factor.failed", who);
    throw new AuthError("WRONG_TWO_FACTOR_CODE");
  }
  await Promise.all([forAccount.succeeded(), fromIp.succeeded()]);
}

/** A TOTP code against a sealed secret, its time step claimed once per user (replays fail). */
export async function totpMatches(
  ctx: AuthContext,
  userId: string,
  sealedSecret: string | null,
  code: string,
): Promise<boolean> {
  if (!sealedSecret || !/^\d{6}$/.test(code)) return false;
  const secret = await ctx.secretBox.open(sealedSecret);
  const step = matchTotp(secret, code, ctx.clock.now());
  if (step === null) return false;
  const { acquired } = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.acquire(`two-factor:totp-step:${userId}:${step}`, TOTP_REPLAY_WINDOW_MS),
  );
  return acquired;
}

async function emailCodeMatches(ctx: AuthContext, userId: string, code: string): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const record = await guardPort("DATABASE_FAILURE", () =>
    ctx.sessions.consumeToken(EMAIL_CODE_PURPOSE, emailCodeHash(userId, code)),
  );
  return record !== null && record.expiresAt > ctx.clock.now();
}

const emailCodeHash = (userId: string, code: string) => hashToken(`${userId}:${code}`);

/** Mails a fresh 6-digit code under the 2FA-code cooldown; the code replaces older ones. */
export function sendEmailCode(
  ctx: AuthContext,
  user: UserRecord,
  locale: string,
): Promise<{ cooldown: number }> {
  return sendWithCooldown(ctx, "two-factor-code", user.email, async () => {
    const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
    const ttlMs = ctx.options.twoFactor.emailCodeTtlSeconds * 1000;
    await guardPort("DATABASE_FAILURE", () =>
      ctx.sessions.saveToken(
        {
          purpose: EMAIL_CODE_PURPOSE,
          tokenHash: emailCodeHash(user.id, code),
          userId: user.id,
          expiresAt: ctx.clock.now() + ttlMs,
        },
        ttlMs,
        { replaceOthers: true },
      ),
    );
    return {
      kind: "two-factor-code",
      to: user.email,
      locale,
      values: { name: user.name, code, minutes: Math.round(ttlMs / 60_000) },
      undo: () => ctx.sessions.deleteUserTokens(user.id, EMAIL_CODE_PURPOSE),
    };
  });
}

/**
 * Recovery codes: 10 per set, 50 random bits each, shown once as `XXXXX-XXXXX`, stored as an
 * HMAC-SHA-256 under a key derived from `twoFactor.encryptionKey` (or `secret`), so a leaked
 * table cannot be searched offline without the key.
 */
const RECOVERY_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export function newRecoveryCodes(): string[] {
  return Array.from({ length: 10 }, () => {
    const chars = Array.from(
      { length: 10 },
      () => RECOVERY_ALPHABET[randomInt(0, RECOVERY_ALPHABET.length)],
    ).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}
export const recoveryCodeHash = (ctx: AuthContext, code: string) =>
  ctx.recoveryCodes.hash(normalizeRecoveryCode(code));
/** The stored hashes a presented code may match (current key first, then rotated ones). */
export const recoveryCodeCandidates = (ctx: AuthContext, code: string) =>
  ctx.recoveryCodes.candidates(normalizeRecoveryCode(code));
const normalizeRecoveryCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, "");
