import type { AuthContext } from "../context.js";
import { trustBrowser as trustBrowserOf } from "../devices/trusted-browsers.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { describeDevice } from "../support/user-agent.js";
import { spendToken } from "../tokens/single-use-token.js";
import {
  statedDevice,
  statedPasswordBreached,
  statedRememberMe,
  takeChallenge,
} from "../two-factor/challenge.js";
import { checkCounted } from "../two-factor/check.js";
import { claimRecoveryCode, findRecoveryCode, releaseRecoveryCode } from "../two-factor/recovery-codes.js";
import { parseCodeInput, signInCodeInput } from "../validation.js";

/**
 * Finishes a login with a one-time recovery code instead of the second factor. Each code works
 * once (claimed atomically, then removed from the account); wrong ones count toward the lock.
 * The owner is mailed a `recovery-code-used` notice (with the codes left) in the background, and
 * the `login.succeeded` event says `reason: "recovery_code"`.
 */
export async function recoverWithRecoveryCode(
  ctx: AuthContext,
  { token, request = {} }: Call,
  input: unknown,
): Promise<SignedIn> {
  const { code, session, rememberMe, trustBrowser } = parseCodeInput(input, signInCodeInput);
  const { record, user, restore, verifiedPasswordHash } = await takeChallenge(ctx, token, "login");
  const stored = user.twoFactor.recoveryCodeHashes;
  const hash = findRecoveryCode(ctx.recoveryCodes, stored, code);
  try {
    await checkCounted(ctx, user.id, request, () => claimRecoveryCode(ctx.cooldowns, user.id, hash));
  } catch (error) {
    await restore();
    throw error;
  }
  const signedIn = await spendToken(ctx, record, async () => {
    const left = stored.filter((candidate) => candidate !== hash);
    await guardPort("DATABASE_FAILURE", () =>
      ctx.users.update(user.id, { twoFactor: { ...user.twoFactor, recoveryCodeHashes: left } }),
    ).catch(async (error: unknown) => {
      // Not removed from the account: let the code work again rather than lose it.
      if (hash !== undefined) await releaseRecoveryCode(ctx.cooldowns, user.id, hash);
      throw error;
    });
    ctx.logger.warn(
      { event: "two_factor.recovery_code_used", userId: user.id, left: left.length },
      "recovery code used",
    );
    const device = session ?? statedDevice(record.data);
    return finishLogin(ctx, user, device, request, {
      reason: "recovery_code",
      recoveryCodesLeft: left.length,
      verifiedPasswordHash,
      rememberMe: rememberMe ?? statedRememberMe(record.data),
      passwordBreached: statedPasswordBreached(record.data),
    });
  });
  if (trustBrowser === true) {
    const device = describeDevice(session ?? statedDevice(record.data), request.userAgent);
    await trustBrowserOf(ctx, user, signedIn.deviceToken, device);
  }
  return signedIn;
}
