import type { AuthContext } from "../context.js";
import type { Acting } from "../sessions/admin-actor.js";

/**
 * The back office's check of the caller and nothing else, for a plugin's or the host's own admin
 * route (the OAuth provider's client management): bound through `asAdmin`, it runs only once the
 * caller is a signed-in admin, not an impersonation, with a live step-up token of that session,
 * and answers that admin's user id (the actor the back office's events name). It changes nothing
 * and emits no event.
 */
export function authorizeAdmin(_ctx: AuthContext, acting: Acting): Promise<{ adminId: string }> {
  return Promise.resolve({ adminId: acting.actor });
}
