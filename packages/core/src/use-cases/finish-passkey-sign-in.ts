import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import { giveBackOnFailure } from "../limits/throttle.js";
import type { Call } from "../model.js";
import {
  type AssertionResponse,
  passkeysOf,
  refuse,
  takeChallenge,
  verifyAssertion,
} from "../passkeys/ceremony.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { assertSsoNotRequired } from "../sso/required.js";
import { parseInput, passkeySignInInput } from "../validation.js";

/**
 * Signs in with a passkey: the challenge of this browser (`call.token`, the challenge cookie's
 * value), a registered credential (of the email-first sign-in's account, when one was named),
 * and a verified assertion with user verification. Complete without a second factor (the passkey
 * is something owned and, with user verification, something known or is). Refused:
 * `PASSKEY_CHALLENGE_INVALID`, `PASSKEY_CHALLENGE_EXPIRED`, `PASSKEY_UNKNOWN`,
 * `PASSKEY_VERIFICATION_FAILED`; each emits `login.failed` with `passkey:<why>`.
 *
 * Counted per client IP before anything is checked, in the budget of failed password logins
 * (`ipLimits.failedLogins`: one budget for every way of guessing a sign-in); past it, 429
 * `LOGIN_THROTTLED`. A sign-in that verifies gives its attempt back; an outage does too.
 */
export async function finishPasskeySignIn(ctx: AuthContext, call: Call, input: unknown): Promise<SignedIn> {
  const passkeys = await passkeysOf(ctx);
  const { response, session, rememberMe } = parseInput(passkeySignInInput, input);
  const request = call.request ?? {};
  const fromIp = await ctx.limits.ip("failedLogins", request);
  const user = await giveBackOnFailure([fromIp], () => verifySignIn(ctx, passkeys, call, response, request));
  await fromIp.succeeded();
  await assertSsoNotRequired(ctx, user, request);
  return finishLogin(ctx, user, session, request, { reason: "passkey", rememberMe });
}

/** The challenge, the credential, its account and the assertion, each refused with its code. */
async function verifySignIn(
  ctx: AuthContext,
  passkeys: Awaited<ReturnType<typeof passkeysOf>>,
  call: Call,
  response: ReturnType<typeof parseInput<typeof passkeySignInInput>>["response"],
  request: NonNullable<Call["request"]>,
) {
  const { challenge, userId } = await takeChallenge(
    ctx,
    response.response.clientDataJSON,
    { kind: "sign-in", browser: call.token },
    request,
  );
  const passkey = await guardPort("DATABASE_FAILURE", () => passkeys.store.findById(response.id));
  if (!passkey || (userId !== "" && passkey.userId !== userId))
    refuse(ctx, "sign-in", { request, userId: userId || null }, "unknown_credential", "PASSKEY_UNKNOWN");
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(passkey.userId));
  if (!user) refuse(ctx, "sign-in", { request }, "unknown_credential", "PASSKEY_UNKNOWN");
  await verifyAssertion(
    ctx,
    passkeys,
    { response: response as AssertionResponse, challenge, passkey },
    "sign-in",
    { request },
  );
  return user;
}
