import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import {
  PASSKEY_ALGORITHMS,
  passkeysOf,
  reasonOf,
  refuse,
  takeSessionChallenge,
} from "../passkeys/ceremony.js";
import type { PasskeyRecord } from "../ports/passkey-store.js";
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";
import { parseInput, passkeyRegistrationInput } from "../validation.js";

/**
 * Verifies the response of `navigator.credentials.create()` (the challenge of this user and
 * session, origin, RP ID, user verification) and stores the passkey (needs step-up). Refused:
 * `PASSKEY_CHALLENGE_INVALID`, `PASSKEY_CHALLENGE_EXPIRED`, `PASSKEY_VERIFICATION_FAILED`,
 * `PASSKEY_ALREADY_REGISTERED`.
 */
export async function finishPasskeyRegistration(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ id: string; name: string; createdAt: string }> {
  const principal = signedIn(call);
  const passkeys = await passkeysOf(ctx);
  const user = await requireStepUp(ctx, call);
  const { response, name } = parseInput(passkeyRegistrationInput, input);
  const clientData = response.response.clientDataJSON;
  const taken = await takeSessionChallenge(ctx, call, "register", principal, clientData);
  const { request, details, challenge } = taken;
  let info: Awaited<ReturnType<typeof passkeys.lib.verifyRegistrationResponse>>["registrationInfo"];
  try {
    const verified = await passkeys.lib.verifyRegistrationResponse({
      response: response as never,
      expectedChallenge: challenge,
      expectedOrigin: passkeys.config.origins,
      expectedRPID: passkeys.config.rpId,
      requireUserVerification: true,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    info = verified.registrationInfo;
  } catch (error) {
    refuse(ctx, "register", details, reasonOf(error), "PASSKEY_VERIFICATION_FAILED");
  }
  if (!info) refuse(ctx, "register", details, "invalid", "PASSKEY_VERIFICATION_FAILED");
  const { credential } = info;
  const record: PasskeyRecord = {
    id: credential.id,
    userId: user.id,
    publicKey: Buffer.from(credential.publicKey).toString("base64url"),
    counter: credential.counter,
    transports: [...(credential.transports ?? response.response.transports ?? [])],
    backupEligible: info.credentialDeviceType === "multiDevice",
    backedUp: info.credentialBackedUp,
    name: name ?? "Passkey",
    createdAt: ctx.clock.now(),
    lastUsedAt: null,
  };
  const stored = await guardPort("DATABASE_FAILURE", () => passkeys.store.create(record));
  if (!stored) throw new AuthError("PASSKEY_ALREADY_REGISTERED");
  ctx.events.emit("passkey.added", { ...request, userId: user.id, sessionId: principal.sessionId });
  return { id: stored.id, name: stored.name, createdAt: new Date(stored.createdAt).toISOString() };
}
