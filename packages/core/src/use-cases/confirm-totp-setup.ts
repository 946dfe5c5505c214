import type { AuthContext } from "../context.js";
import { AuthError, guardPort, isInfrastructureFailure } from "../errors.js";
import type { User } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import { TOTP_SETUP_PURPOSE } from "../tokens/purposes.js";
import { consumeSingleUseToken, restoreToken, spendToken } from "../tokens/single-use-token.js";
import { checkCounted, totpMatches } from "../two-factor/check.js";
import { checkEnabling, type StepUpCall, saveTwoFactor } from "../two-factor/settings.js";
import { confirmTotpInput, parseInput } from "../validation.js";

/** Turns TOTP on with a code from the new secret; it becomes preferred, and every other session ends. */
export async function confirmTotpSetup(ctx: AuthContext, call: StepUpCall, input: unknown): Promise<User> {
  const { principal, request = {} } = call;
  const {
    user,
    input: { setupToken, code },
  } = await checkEnabling(ctx, call, () => parseInput(confirmTotpInput, input));
  const taken = await consumeSingleUseToken(ctx, TOTP_SETUP_PURPOSE, setupToken);
  if (!taken || taken.expired || taken.record.userId !== user.id)
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  const { record } = taken;
  return spendToken(ctx, record, async () => {
    const sealed = String(record.data?.secret ?? "");
    try {
      await checkCounted(ctx, user.id, request, () =>
        totpMatches(ctx, user.id, sealed, code.replace(/\s/g, "")),
      );
    } catch (error) {
      // A wrong code keeps the setup usable for another try (a throttle answer too).
      if (error instanceof AuthError && !isInfrastructureFailure(error)) await restoreToken(ctx, record);
      throw error;
    }
    const methods: TwoFactorMethod[] = [...user.twoFactor.methods.filter((m) => m !== "totp"), "totp"];
    const result = await saveTwoFactor(
      ctx,
      user,
      {
        ...user.twoFactor,
        methods,
        preferredMethod: "totp",
        totpSecretEncrypted: sealed,
        recoveryCodeHashes: JSON.parse(String(record.data?.recoveryCodeHashes ?? "[]")) as string[],
      },
      { change: "added", method: "totp" },
      request,
    );
    await guardPort("DATABASE_FAILURE", () => ctx.sessions.deleteUserSessions(user.id, principal.sessionId));
    return result;
  });
}
