import { type ActivityPage, listActivityPage } from "../activity/list.js";
import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * A page of the signed-in user's activity (their security events), newest first:
 * `{ cursor?, limit? }` (`limit` 1 to 100, default 20; `cursor` from the previous page's
 * `nextCursor`). Only ever the caller's own entries.
 */
export async function listActivity(ctx: AuthContext, call: Call, input?: unknown): Promise<ActivityPage> {
  const { userId } = signedIn(call);
  return listActivityPage(ctx, userId, input);
}
