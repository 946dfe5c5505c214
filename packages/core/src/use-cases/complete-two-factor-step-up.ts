import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { signedIn } from "../sessions/signed-in.js";
import { takeChallenge } from "../two-factor/challenge.js";
import { checkSecondFactor } from "../two-factor/check.js";
import { parseCodeInput } from "../validation.js";

/** The second factor of a step-up: the 2FA token must come from `stepUp` in this same session. */
export async function completeTwoFactorStepUp(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ twoFactorRequired: false; stepUpToken: string }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const { token, request = {} } = call;
  const { code, method } = parseCodeInput(input);
  const { record, user, restore } = await takeChallenge(ctx, token, "step-up");
  if (user.id !== principal.userId || record.data?.sessionId !== principal.sessionId)
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  try {
    await checkSecondFactor(ctx, user, method, code, request);
  } catch (error) {
    await restore();
    throw error;
  }
  return { twoFactorRequired: false, stepUpToken: await ctx.stepUpTokens.sign(user.id, principal.sessionId) };
}
