import { guardPort } from "../errors.js";
import type { ChangeStores, StoresTogether } from "../ports/stores-together.js";
import { endUserSessions } from "./session-lifecycle.js";

/**
 * A change that ends a user's sessions because what signs them in changes (a new password):
 * `steps` ends the sessions, makes the change and ends them again, in that order. With
 * `together`, the steps run in one transaction (all of them or none) and the sessions are ended
 * once more after the commit: a sign-in that checked the old password while the transaction was
 * open wrote its session outside it. Without, the steps run one by one on the stores, and their
 * order keeps each state between two of them safe (docs/security.md, "Fail-safe order").
 */
export async function changeEndingSessions<T>(
  ctx: ChangeStores & { together: StoresTogether | undefined },
  userId: string,
  steps: (stores: ChangeStores) => Promise<T>,
  /** A session that stays (the signed-in user's own, for a password change): never ended here. */
  keepSessionId?: string,
): Promise<{ result: T; endedAfter: number }> {
  const { together } = ctx;
  if (!together) return { result: await steps(ctx), endedAfter: 0 };
  const result = await guardPort("DATABASE_FAILURE", () => together.run(steps));
  return { result, endedAfter: (await endUserSessions(ctx, userId, keepSessionId)).length };
}
