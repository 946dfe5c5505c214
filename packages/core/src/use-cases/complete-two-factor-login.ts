import type { AuthContext, RequestContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import {
  assertNotThrottled,
  checkSecondFactor,
  parseCodeInput,
  recordFailure,
  recoveryCodeHash,
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
    await checkSecondFactor(ctx, user, method, code);
  } catch (error) {
    await restore();
    throw error;
  }
  return finishLogin(ctx, user, session ?? statedDevice(record.data), request);
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
  const hash = recoveryCodeHash(code);
  try {
    await checkRecoveryCode(ctx, user.id, user.twoFactor.recoveryCodeHashes, hash);
  } catch (error) {
    await restore();
    throw error;
  }
  await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(user.id, {
      twoFactor: {
        ...user.twoFactor,
        recoveryCodeHashes: user.twoFactor.recoveryCodeHashes.filter((stored) => stored !== hash),
      },
    }),
  );
  ctx.logger.warn(
    {
      event: "two_factor.recovery_code_used",
      userId: user.id,
      left: user.twoFactor.recoveryCodeHashes.length - 1,
    },
    "recovery code used",
  );
  return finishLogin(ctx, user, session ?? statedDevice(record.data), request);
}

async function checkRecoveryCode(
  ctx: AuthContext,
  userId: string,
  hashes: string[],
  hash: string,
): Promise<void> {
  await assertNotThrottled(ctx, userId);
  const claimed =
    hashes.includes(hash) &&
    (
      await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
        ctx.cooldowns.acquire(`two-factor:recovery:${userId}:${hash}`, 366 * 24 * 3600 * 1000),
      )
    ).acquired;
  if (!claimed) {
    await recordFailure(ctx, userId);
    throw new AuthError("WRONG_TWO_FACTOR_CODE");
  }
}

function statedDevice(
  data: Record<string, unknown> | undefined,
): { browser?: string; os?: string } | undefined {
  const browser = typeof data?.browser === "string" ? data.browser : undefined;
  const os = typeof data?.os === "string" ? data.os : undefined;
  return browser || os ? { ...(browser ? { browser } : {}), ...(os ? { os } : {}) } : undefined;
}
