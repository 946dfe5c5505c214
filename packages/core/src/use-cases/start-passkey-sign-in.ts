import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueChallenge, PASSKEY_CHALLENGE_TTL_MS, passkeysOf } from "../passkeys/ceremony.js";
import { type AllowedCredential, standInCredentials } from "../passkeys/stand-in.js";
import { parseInput, passkeySignInOptionsInput } from "../validation.js";

/** What `startPasskeySignIn` returns: the options for `navigator.credentials.get()`, and the browser's challenge cookie. */
export interface PasskeySignInStart {
  options: Record<string, unknown>;
  /** The value of the challenge cookie: only the browser holding it can answer the challenge. */
  browserBinding: string;
}

/**
 * The options of `navigator.credentials.get()` for a sign-in: a challenge for 5 minutes, bound
 * to the browser (the HTTP layer sets `browserBinding` as an HttpOnly cookie), user
 * verification required. Without `email` (a discoverable sign-in) no credential is named; with
 * it, the account's passkeys are, and an address without any gets stand-in entries derived from
 * it under a key (`standInCredentials`: the same fields, transports and id lengths as real ones,
 * the same answer every time), after the same store reads, so the answer does not tell which
 * addresses have passkeys. Counted per client IP (`ipLimits.passkeySignInStarts`) and for all
 * clients together (`webauthn.maxOutstandingChallenges` per 15 minutes, as long as the store keeps
 * a challenge): 429 `RATE_LIMITED` past either.
 */
export async function startPasskeySignIn(
  ctx: AuthContext,
  { request = {} }: Call,
  input?: unknown,
): Promise<PasskeySignInStart> {
  const passkeys = await passkeysOf(ctx);
  const { email } = parseInput(passkeySignInOptionsInput, input ?? {}) ?? {};
  // Each start stores a challenge: counted per IP, then against the cap of challenges kept for
  // all clients together, before anything is read or written.
  await ctx.limits.ip("passkeySignInStarts", request);
  await ctx.limits.passkeyChallenge(request);
  let userId: string | undefined;
  let allowCredentials: AllowedCredential[] | undefined;
  if (email !== undefined) {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    // An unknown address lists the passkeys of an id no account has: the same reads either way.
    const listed = user?.id ?? `stand-in:${ctx.passkeyDecoys.hash(`user:${email}`)}`;
    const owned = await guardPort("DATABASE_FAILURE", () => passkeys.store.listByUser(listed));
    userId = user?.id;
    allowCredentials =
      user && owned.length > 0
        ? owned.map((passkey) => ({ id: passkey.id, transports: [...passkey.transports] }))
        : standInCredentials(ctx.passkeyDecoys, email);
  }
  const { bytes, browser } = await issueChallenge(ctx, { kind: "sign-in", browser: undefined, userId });
  const options = await passkeys.lib.generateAuthenticationOptions({
    rpID: passkeys.config.rpId,
    challenge: bytes,
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    userVerification: "required",
    ...(allowCredentials ? { allowCredentials } : {}),
  });
  return { options: { ...options }, browserBinding: browser as string };
}
