import type { AuthContext } from "../context.js";
import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import type { Call } from "../model.js";
import { emailInput, parseInput } from "../validation.js";

/** Seconds until another reset email can be requested for the address (0: now). */
export async function getPasswordResetCooldown(
  ctx: AuthContext,
  _call: Call,
  email: unknown,
): Promise<{ remaining: number }> {
  const parsed = parseInput(emailInput, { email });
  return cooldownRemaining(ctx, "password-reset", parsed.email);
}
