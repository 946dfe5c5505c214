import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call, User } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import { requireStepUp, saveTwoFactor } from "../two-factor/settings.js";

/** Turns a 2FA method off (needs step-up). */
export async function disableTwoFactorMethod(
  ctx: AuthContext,
  call: Call,
  method: TwoFactorMethod,
): Promise<User> {
  const user = await requireStepUp(ctx, call);
  if (!user.twoFactor.methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  return saveTwoFactor(
    ctx,
    user,
    { ...user.twoFactor, methods: user.twoFactor.methods.filter((m) => m !== method) },
    { change: "removed", method },
    call.request ?? {},
  );
}
