import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type Call, toUser, type User } from "../model.js";
import { requireStepUp } from "../two-factor/settings.js";
import { parseInput, preferredMethodInput } from "../validation.js";

/** Chooses which enabled method login offers first (needs step-up). */
export async function setPreferredTwoFactorMethod(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<User> {
  const user = await requireStepUp(ctx, call);
  const { method } = parseInput(preferredMethodInput, input);
  if (!user.twoFactor.methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  const updated = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(user.id, { twoFactor: { ...user.twoFactor, preferredMethod: method } }),
  );
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  return toUser(updated);
}
