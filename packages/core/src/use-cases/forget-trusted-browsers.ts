import type { AuthContext } from "../context.js";
import { forgetTrustedBrowsers as forgetTrusts } from "../devices/trusted-browsers.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { signedIn } from "../sessions/signed-in.js";

/** A trusted browser's id as `listTrustedBrowsers` shows it: a SHA-256, base64url. */
const TRUST_ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * Ends the signed-in user's trust in one browser (`id` from the list; `NOT_FOUND` when it is not
 * one of theirs) or, without `id`, in every browser: their next password sign-in asks for the
 * second factor again. An impersonation cannot (`IMPERSONATION_NOT_ALLOWED`).
 */
export async function forgetTrustedBrowsers(
  ctx: AuthContext,
  call: Call,
  id?: string,
): Promise<{ success: true; forgotten: number }> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  if (id !== undefined && !TRUST_ID.test(id)) throw new AuthError("NOT_FOUND");
  const forgotten = await forgetTrusts(ctx, { id: principal.userId }, id);
  ctx.logger.info(
    { event: "two_factor.browsers_forgotten", userId: principal.userId, forgotten },
    "trusted browsers forgotten",
  );
  return { success: true, forgotten };
}
