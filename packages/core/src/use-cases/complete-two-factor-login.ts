import type { AuthContext, RequestContext } from "../context.js";
import { guardPort } from "../errors.js";
import { spendToken } from "../tokens/single-use-token.js";
import {
  checkCounted,
  checkSecondFactor,
  parseCodeInput,
  recoveryCodeCandidates,
  takeChallenge,
} from "../two-factor/second-factor.js";
import { finishLogin, type LoginResult } from "./login.js";

/**
 * Finishes a login with a TOTP or emailed code and the 2FA token of the password step. The token
 * is single use: it is given back only when the code was wrong, so 20 concurrent completions with
 * one code give exactly one session.
 */
export async function completeTwoFactorLogin(
  ctx: AuthContext,
  token: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<LoginResult & { twoFactorRequired: false }> {
  const { code, method, session } = parseCodeInput(input);
  const { record, user, restore } = await takeChallenge(ctx, token, "login");
  try {
    await checkSecondFactor(ctx, user, method, code, request);
  } catch (error) {
    await restore();
    throw error;
  }
  return spendToken(ctx, record, () => finishLogin(ctx, user, session ?? statedDevice(record.data), request));
}

/**
 * Finishes a login with a one-time recovery code instead of the second factor. Each code works
 * once (claimed atomically, then removed from the account); wrong ones count toward the lock.
 */
export async function recoverWithRecoveryCode(
  ctx: AuthContext,
  token: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<LoginResult & { twoFactorRequired: false }> {
  const { code, session } = parseCodeInput(input);
  const { record, user, restore } = await takeChallenge(ctx, token, "login");
  const stored = user.twoFactor.recoveryCodeHashes;
  const hash = recoveryCodeCandidates(ctx, code).find((candidate) => stored.includes(candidate));
  try {
    await checkCounted(ctx, user.id, request, () => claimRecoveryCode(ctx, user.id, hash));
  } catch (error) {
    await restore();
    throw error;
  }
  return spendToken(ctx, record, async () => {
    await guardPort("DATABASE_FAILURE", () =>
      ctx.users.update(user.id, {
        twoFactor: {
          ...user.twoFactor,
          recoveryCodeHashes: user.twoFactor.recoveryCodeHashes.filter((stored) => stored !== hash),
        },
      }),
    ).catch(async (error: unknown) => {
      // Not removed from the account: let the code work again rather than lose it.
      if (hash !== undefined) await ctx.cooldowns.release(recoveryClaimKey(user.id, hash)).catch(() => {});
      throw error;
    });
    ctx.logger.warn(
      {
        event: "two_factor.recovery_code_used",
        userId: user.id,
        left: user.twoFactor.recoveryCodeHashes.length - 1,
      },
      "recovery code used",
    );
    return finishLogin(ctx, user, session ?? statedDevice(record.data), request);
  });
}

const recoveryClaimKey = (userId: string, hash: string) => `two-factor:recovery:${userId}:${hash}`;

/** A stored recovery code works once: of concurrent uses, one claims it. */
async function claimRecoveryCode(
  ctx: AuthContext,
  userId: string,
  hash: string | undefined,
): Promise<boolean> {
  if (hash === undefined) return false;
  const { acquired } = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.acquire(recoveryClaimKey(userId, hash), 366 * 24 * 3600 * 1000),
  );
  return acquired;
}

function statedDevice(
  data: Record<string, unknown> | undefined,
): { browser?: string; os?: string } | undefined {
  const browser = typeof data?.browser === "string" ? data.browser : undefined;
  const os = typeof data?.os === "string" ? data.os : undefined;
  return browser || os ? { ...(browser ? { browser } : {}), ...(os ? { os } : {}) } : undefined;
}
