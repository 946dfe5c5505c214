import type { AuthContext } from "../context.js";
import { emailInput, parseInput } from "../validation.js";
import { cooldownRemaining } from "./email-flow.js";

/** Seconds until another reset email can be requested for the address (0: now). */
export async function getPasswordResetCooldown(
  ctx: AuthContext,
  email: unknown,
): Promise<{ remaining: number }> {
  const parsed = parseInput(emailInput, { email });
  return cooldownRemaining(ctx, "password-reset", parsed.email);
}
