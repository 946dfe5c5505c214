import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueChallenge, PASSKEY_CHALLENGE_TTL_MS, passkeysOf } from "../passkeys/ceremony.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The options of `navigator.credentials.get()` for a step-up of the signed-in user: a challenge
 * bound to this user and session for 5 minutes, the user's passkeys, user verification required.
 */
export async function startPasskeyStepUp(ctx: AuthContext, call: Call): Promise<Record<string, unknown>> {
  const principal = signedIn(call);
  const passkeys = await passkeysOf(ctx);
  const user = await currentUser(ctx, principal);
  const owned = await guardPort("DATABASE_FAILURE", () => passkeys.store.listByUser(user.id));
  const { bytes } = await issueChallenge(ctx, { kind: "step-up", principal });
  const options = await passkeys.lib.generateAuthenticationOptions({
    rpID: passkeys.config.rpId,
    challenge: bytes,
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    userVerification: "required",
    allowCredentials: owned.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
  });
  return { ...options };
}
