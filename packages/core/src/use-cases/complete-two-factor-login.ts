import type { AuthContext } from "../context.js";
import { trustBrowser as trustBrowserOf } from "../devices/trusted-browsers.js";
import type { Call } from "../model.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { describeDevice } from "../support/user-agent.js";
import { spendToken } from "../tokens/single-use-token.js";
import {
  offeredMethods,
  statedDevice,
  statedPasswordBreached,
  statedRememberMe,
  takeChallenge,
} from "../two-factor/challenge.js";
import { checkSecondFactor } from "../two-factor/check.js";
import { parseCodeInput, signInCodeInput } from "../validation.js";

/**
 * Finishes a login with a TOTP or emailed code and the 2FA token of the password step. The token
 * is single use: it is given back only when the code was wrong (or a store failed), so 20
 * concurrent completions with one code give exactly one session. With `trustBrowser: true` the
 * browser is trusted afterwards (its next password sign-ins skip this step).
 */
export async function completeTwoFactorLogin(
  ctx: AuthContext,
  { token, request = {} }: Call,
  input: unknown,
): Promise<SignedIn> {
  const { code, method, session, rememberMe, trustBrowser } = parseCodeInput(input, signInCodeInput);
  const { record, user, restore, verifiedPasswordHash } = await takeChallenge(ctx, token, "login");
  try {
    // After a sign-in by email, the email method is not offered (its code is refused).
    await checkSecondFactor(ctx, offeredMethods(user, record.data?.signIn), method, code, request);
  } catch (error) {
    await restore();
    throw error;
  }
  // The password step's hash, when there was one: a reset that lands meanwhile ends this session.
  const details = {
    rememberMe: rememberMe ?? statedRememberMe(record.data),
    verifiedPasswordHash,
    passwordBreached: statedPasswordBreached(record.data),
    ...(record.data?.signIn === "email" ? { reason: "email" } : {}),
  };
  const device = session ?? statedDevice(record.data);
  const signedIn = await spendToken(ctx, record, () => finishLogin(ctx, user, device, request, details));
  if (trustBrowser === true) {
    await trustBrowserOf(ctx, user, signedIn.deviceToken, describeDevice(device, request.userAgent));
  }
  return signedIn;
}
