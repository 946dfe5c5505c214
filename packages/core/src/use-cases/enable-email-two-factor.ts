import type { AuthContext } from "../context.js";
import { type Call, toUser, type User } from "../model.js";
import type { HeldToken } from "../tokens/single-use-token.js";
import { checkCounted } from "../two-factor/check.js";
import { holdEmailCode } from "../two-factor/email-code.js";
import { checkEnabling, saveTwoFactor } from "../two-factor/settings.js";
import { parseCodeInput } from "../validation.js";

/**
 * Turns email 2FA on with a code from `sendTwoFactorEmailCode` (needs step-up). The code is
 * checked under the 2FA budget (a wrong one counts) and held while the method is saved: of
 * concurrent calls with one code, one goes on; it is spent only once the save is done, and a
 * failed save gives it back, so the user can try again with the same code.
 */
export async function enableEmailTwoFactor(ctx: AuthContext, call: Call, input: unknown): Promise<User> {
  const { request = {} } = call;
  const {
    user,
    input: { code },
  } = await checkEnabling(ctx, call, () => parseCodeInput(input));
  // Set when the code matched (checkCounted throws WRONG_TWO_FACTOR_CODE otherwise).
  let held = undefined as HeldToken | undefined;
  let result: User;
  try {
    await checkCounted(ctx, user.id, request, async () => {
      held = (await holdEmailCode(ctx, user.id, code)) ?? undefined;
      return held !== undefined;
    });
    result = user.twoFactor.methods.includes("email")
      ? toUser(user)
      : await saveTwoFactor(
          ctx,
          user,
          { ...user.twoFactor, methods: [...user.twoFactor.methods, "email"] },
          { change: "added", method: "email" },
          request,
        );
  } catch (error) {
    await held?.release();
    throw error;
  }
  await held?.consume();
  return result;
}
