import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import {
  issueChallenge,
  PASSKEY_ALGORITHMS,
  PASSKEY_CHALLENGE_TTL_MS,
  passkeysOf,
} from "../passkeys/ceremony.js";
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";

/**
 * The options of `navigator.credentials.create()` for a new passkey of the signed-in user (needs
 * step-up): a challenge bound to this user and session for 5 minutes, user verification
 * required, the user's passkeys excluded, attestation `none`. `NOT_FOUND` without `webauthn`.
 */
export async function startPasskeyRegistration(
  ctx: AuthContext,
  call: Call,
): Promise<Record<string, unknown>> {
  const principal = signedIn(call);
  const passkeys = await passkeysOf(ctx);
  const user = await requireStepUp(ctx, call);
  const existing = await guardPort("DATABASE_FAILURE", () => passkeys.store.listByUser(user.id));
  const { bytes } = await issueChallenge(ctx, { kind: "register", principal });
  const options = await passkeys.lib.generateRegistrationOptions({
    rpName: passkeys.config.rpName,
    rpID: passkeys.config.rpId,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    userDisplayName: user.name ?? user.email,
    challenge: bytes,
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    attestationType: "none",
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    excludeCredentials: existing.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
  });
  return { ...options };
}
