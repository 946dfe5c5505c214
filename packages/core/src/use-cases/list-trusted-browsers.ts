import type { AuthContext } from "../context.js";
import { listTrustedBrowsers as listTrusts, type TrustedBrowserInfo } from "../devices/trusted-browsers.js";
import type { Call } from "../model.js";
import { currentUser } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The browsers the signed-in user trusted to skip the second factor (`trustBrowser: true`) whose
 * trust still holds, most recently used first; `current` marks the browser of
 * `call.request.deviceToken`.
 */
export async function listTrustedBrowsers(ctx: AuthContext, call: Call): Promise<TrustedBrowserInfo[]> {
  const user = await currentUser(ctx, signedIn(call));
  return listTrusts(ctx, user, call.request?.deviceToken);
}
