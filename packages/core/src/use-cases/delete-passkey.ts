import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { passkeysOf } from "../passkeys/ceremony.js";
import { signInMethodsBesidesPasskeys } from "../passkeys/sign-in-methods.js";
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";
import { credentialIdField } from "../validation.js";

/**
 * Removes one of the signed-in user's passkeys (needs step-up). The account's last way to sign
 * in (no password, no identity provider, one passkey) cannot be removed: `LAST_SIGN_IN_METHOD`,
 * also when deletes run concurrently (the store removes the passkey only when the account keeps
 * another, atomically). `NOT_FOUND` when the user has no passkey `id`.
 */
export async function deletePasskey(ctx: AuthContext, call: Call, id: string): Promise<{ success: true }> {
  const principal = signedIn(call);
  const { store } = await passkeysOf(ctx);
  const user = await requireStepUp(ctx, call);
  if (!credentialIdField.safeParse(id).success) throw new AuthError("NOT_FOUND");
  const keepAtLeast = (await signInMethodsBesidesPasskeys(ctx, user)) > 0 ? 0 : 1;
  const removed = await guardPort("DATABASE_FAILURE", () => store.delete(user.id, id, { keepAtLeast }));
  if (!removed) {
    const still = await guardPort("DATABASE_FAILURE", () => store.findById(id));
    if (still?.userId === user.id) throw new AuthError("LAST_SIGN_IN_METHOD");
    throw new AuthError("NOT_FOUND");
  }
  ctx.events.emit("passkey.removed", { ...call.request, userId: user.id, sessionId: principal.sessionId });
  return { success: true };
}
