import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { ssoStoreOf } from "../sso/connections.js";

/**
 * Counts an enterprise sign-in started from the caller's IP (`auth.sso.countStart`, before the
 * plugin stores the request): `ipLimits.ssoSignInStarts`, 429 `RATE_LIMITED` past it, so that
 * anyone's requests cannot fill the store. Counted first, in one atomic store step, as every
 * per-IP limit is.
 */
export async function countSsoSignInStart(ctx: AuthContext, call: Call): Promise<void> {
  ssoStoreOf(ctx);
  await ctx.limits.ip("ssoSignInStarts", call.request ?? {});
}
