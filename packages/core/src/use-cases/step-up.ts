import { z } from "zod";
import type { AuthContext, Principal, RequestContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { normalizePassword } from "../password-policy.js";
import {
  checkSecondFactor,
  parseCodeInput,
  startChallenge,
  type TwoFactorChallenge,
  takeChallenge,
} from "../two-factor/second-factor.js";
import { parseInput, passwordField } from "../validation.js";

export type StepUpResult =
  | { twoFactorRequired: false; stepUpToken: string }
  | ({ twoFactorRequired: true } & TwoFactorChallenge);

const stepUpInput = z.object({ password: passwordField });

/**
 * Confirms the signed-in user's password before a security setting changes. Without 2FA it
 * gives a step-up token bound to this user and session; with 2FA it starts a second-factor step
 * like login does, finished by `completeTwoFactorStepUp`. A wrong password is `INVALID_CREDENTIALS`.
 */
export async function stepUp(
  ctx: AuthContext,
  principal: Principal,
  input: unknown,
  request: RequestContext = {},
): Promise<StepUpResult> {
  const { password } = parseInput(stepUpInput, input);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  // The account's login budget: a stolen access token is no unlimited password oracle.
  const attempt = await ctx.limits.password(user.email, { ...request, userId: user.id });
  const ok =
    user.passwordHash !== null && (await ctx.hasher.verify(user.passwordHash, normalizePassword(password)));
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

/** The second factor of a step-up: the 2FA token must come from `stepUp` in this same session. */
export async function completeTwoFactorStepUp(
  ctx: AuthContext,
  principal: Principal,
  token: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<{ twoFactorRequired: false; stepUpToken: string }> {
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
