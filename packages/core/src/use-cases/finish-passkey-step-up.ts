import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import {
  type AssertionResponse,
  passkeysOf,
  refuse,
  takeSessionChallenge,
  verifyAssertion,
} from "../passkeys/ceremony.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";
import { parseInput, passkeyStepUpInput } from "../validation.js";

/**
 * A step-up with one of the signed-in user's passkeys (user verification required): the step-up
 * token bound to this user and session, as a password step-up gives it, with no second factor
 * after it (a passkey with user verification is two factors). Refused as a sign-in is, with
 * `step_up.failed` events.
 */
export async function finishPasskeyStepUp(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ twoFactorRequired: false; stepUpToken: string }> {
  const principal = signedIn(call);
  const passkeys = await passkeysOf(ctx);
  const user = await currentUser(ctx, principal);
  const { response } = parseInput(passkeyStepUpInput, input);
  const clientData = response.response.clientDataJSON;
  const taken = await takeSessionChallenge(ctx, call, "step-up", principal, clientData);
  const { request, details, challenge } = taken;
  const passkey = await guardPort("DATABASE_FAILURE", () => passkeys.store.findById(response.id));
  if (!passkey || passkey.userId !== user.id)
    refuse(ctx, "step-up", details, "unknown_credential", "PASSKEY_UNKNOWN");
  await verifyAssertion(
    ctx,
    passkeys,
    { response: response as AssertionResponse, challenge, passkey },
    "step-up",
    { request, sessionId: principal.sessionId },
  );
  return { twoFactorRequired: false, stepUpToken: await ctx.stepUpTokens.sign(user.id, principal.sessionId) };
}
