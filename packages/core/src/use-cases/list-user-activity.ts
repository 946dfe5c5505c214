import { type ActivityPage, listActivityPage } from "../activity/list.js";
import type { AuthContext } from "../context.js";
import type { Acting } from "../sessions/admin-actor.js";
import { parseInput, userIdField } from "../validation.js";

/**
 * A page of any user's activity, for a script or back office: `{ userId, cursor?, limit? }`.
 * An unknown user has none (`{ items: [], nextCursor: null }`).
 */
export async function listUserActivity(
  ctx: AuthContext,
  _acting: Acting,
  input: { userId: string; cursor?: string | undefined; limit?: number | undefined },
): Promise<ActivityPage> {
  const { userId, ...page } = input ?? ({} as typeof input);
  return listActivityPage(ctx, parseInput(userIdField, userId), page);
}
