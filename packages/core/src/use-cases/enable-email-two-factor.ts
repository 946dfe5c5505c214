import type { AuthContext } from "../context.js";
import { type Principal, type RequestContext, toUser, type User } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { checkSecondFactor } from "../two-factor/check.js";
import { checkEnabling, saveTwoFactor } from "../two-factor/settings.js";
import { parseCodeInput } from "../validation.js";

/** Turns email 2FA on with a code from `sendTwoFactorEmailCode` (needs step-up). */
export async function enableEmailTwoFactor(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<User> {
  const {
    user,
    input: { code },
  } = await checkEnabling(ctx, principal, stepUpToken, () => parseCodeInput(input));
  const withEmail: UserRecord = {
    ...user,
    twoFactor: { ...user.twoFactor, methods: [...user.twoFactor.methods, "email"] },
  };
  await checkSecondFactor(ctx, withEmail, "email", code, request);
  if (user.twoFactor.methods.includes("email")) return toUser(user);
  return saveTwoFactor(ctx, user, withEmail.twoFactor, { change: "added", method: "email" }, request);
}
