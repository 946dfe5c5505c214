import type { AuthContext } from "../context.js";
import { toUser, type User } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { checkSecondFactor } from "../two-factor/check.js";
import { checkEnabling, type StepUpCall, saveTwoFactor } from "../two-factor/settings.js";
import { parseCodeInput } from "../validation.js";

/** Turns email 2FA on with a code from `sendTwoFactorEmailCode` (needs step-up). */
export async function enableEmailTwoFactor(
  ctx: AuthContext,
  call: StepUpCall,
  input: unknown,
): Promise<User> {
  const { request = {} } = call;
  const {
    user,
    input: { code },
  } = await checkEnabling(ctx, call, () => parseCodeInput(input));
  const withEmail: UserRecord = {
    ...user,
    twoFactor: { ...user.twoFactor, methods: [...user.twoFactor.methods, "email"] },
  };
  await checkSecondFactor(ctx, withEmail, "email", code, request);
  if (user.twoFactor.methods.includes("email")) return toUser(user);
  return saveTwoFactor(ctx, user, withEmail.twoFactor, { change: "added", method: "email" }, request);
}
