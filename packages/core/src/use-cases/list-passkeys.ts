import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { type PasskeyView, passkeysOf, toPasskeyView } from "../passkeys/ceremony.js";
import { signedIn } from "../sessions/signed-in.js";

/** The signed-in user's passkeys, oldest first (never a public key). */
export async function listPasskeys(ctx: AuthContext, call: Call): Promise<{ passkeys: PasskeyView[] }> {
  const principal = signedIn(call);
  const { store } = await passkeysOf(ctx);
  const passkeys = await guardPort("DATABASE_FAILURE", () => store.listByUser(principal.userId));
  return { passkeys: passkeys.map(toPasskeyView) };
}
