import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { issueChallenge, PASSKEY_CHALLENGE_TTL_MS, passkeysOf } from "../passkeys/ceremony.js";
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
 * it, the account's passkeys are, and an address without any gets a stand-in id derived from it,
 * so the answer does not tell which addresses have passkeys. Counted per client IP
 * (`ipLimits.passkeySignInStarts`, 429 `RATE_LIMITED`).
 */
export async function startPasskeySignIn(
  ctx: AuthContext,
  { request = {} }: Call,
  input?: unknown,
): Promise<PasskeySignInStart> {
  const passkeys = await passkeysOf(ctx);
  const { email } = parseInput(passkeySignInOptionsInput, input ?? {}) ?? {};
  // Each start stores a challenge: counted per IP before anything is read or written.
  await ctx.limits.ip("passkeySignInStarts", request);
  let userId: string | undefined;
  let allowCredentials: { id: string; transports?: string[] }[] | undefined;
  if (email !== undefined) {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    const owned = user ? await guardPort("DATABASE_FAILURE", () => passkeys.store.listByUser(user.id)) : [];
    userId = user?.id;
    allowCredentials =
      owned.length > 0
        ? owned.map((passkey) => ({ id: passkey.id, transports: passkey.transports }))
        : [{ id: ctx.passkeyDecoys.hash(email) }];
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
