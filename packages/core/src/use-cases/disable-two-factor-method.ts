import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Principal, RequestContext, User } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import { requireStepUp, saveTwoFactor } from "../two-factor/settings.js";

/** Turns a 2FA method off (needs step-up). */
export async function disableTwoFactorMethod(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  method: TwoFactorMethod,
  request: RequestContext = {},
): Promise<User> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  if (!user.twoFactor.methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  return saveTwoFactor(
    ctx,
    user,
    { ...user.twoFactor, methods: user.twoFactor.methods.filter((m) => m !== method) },
    { change: "removed", method },
    request,
  );
}
