import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import { giveBackOnFailure } from "../limits/throttle.js";
import type { Call } from "../model.js";
import { normalizePassword } from "../passwords/password-policy.js";
import { currentUser } from "../sessions/current-user.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { signedIn } from "../sessions/signed-in.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";
import { parseInput, stepUpInput } from "../validation.js";

export type StepUpResult =
  | { twoFactorRequired: false; stepUpToken: string }
  | ({ twoFactorRequired: true } & TwoFactorChallenge);

/**
 * Confirms the signed-in user's password before a security setting changes. Without 2FA it
 * gives a step-up token bound to this user and session; with 2FA it starts a second-factor step
 * like login does, finished by `completeTwoFactorStepUp`. A wrong password is `INVALID_CREDENTIALS`.
 */
export async function stepUp(ctx: AuthContext, call: Call, input: unknown): Promise<StepUpResult> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const { request = {} } = call;
  const { password } = parseInput(stepUpInput, input);
  const user = await currentUser(ctx, principal);
  // The session's own budget (the login's rules): a stolen access token is no unlimited password
  // oracle, and failed logins on the address (anyone's) do not block the signed-in owner.
  const attempt = await ctx.limits.sessionPassword(principal.sessionId, { ...request, userId: user.id });
  // A hasher that fails before the password is evaluated gives the attempt back.
  const ok = await giveBackOnFailure(
    [attempt],
    async () =>
      user.passwordHash !== null && (await ctx.hasher.verify(user.passwordHash, normalizePassword(password))),
  );
  if (!ok) {
    ctx.events.emit("step_up.failed", { ...request, userId: user.id, sessionId: principal.sessionId });
    throw new AuthError("INVALID_CREDENTIALS");
  }
  await attempt.succeeded();
  if (user.twoFactor.methods.length > 0) {
    const locale = request.locale ?? ctx.translator.defaultLocale;
    return {
      twoFactorRequired: true,
      ...(await startChallenge(ctx, user, { kind: "step-up", sessionId: principal.sessionId }, locale)),
    };
  }
  return { twoFactorRequired: false, stepUpToken: await ctx.stepUpTokens.sign(user.id, principal.sessionId) };
}
