import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { type PasskeyView, passkeysOf, toPasskeyView } from "../passkeys/ceremony.js";
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";
import { credentialIdField, parseInput, passkeyRenameInput } from "../validation.js";

/** Renames one of the signed-in user's passkeys (needs step-up); `NOT_FOUND` when the user has no passkey `id`. */
export async function renamePasskey(
  ctx: AuthContext,
  call: Call,
  input: { id: string; body: unknown },
): Promise<PasskeyView> {
  const principal = signedIn(call);
  const { store } = await passkeysOf(ctx);
  const user = await requireStepUp(ctx, call);
  const { name } = parseInput(passkeyRenameInput, input.body);
  if (!credentialIdField.safeParse(input.id).success) throw new AuthError("NOT_FOUND");
  const renamed = await guardPort("DATABASE_FAILURE", () => store.rename(user.id, input.id, name));
  if (!renamed) throw new AuthError("NOT_FOUND");
  ctx.events.emit("passkey.renamed", { ...call.request, userId: user.id, sessionId: principal.sessionId });
  return toPasskeyView(renamed);
}
