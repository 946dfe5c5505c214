import { guardPort } from "../errors.js";
import type { Logger } from "../ports/logger.js";
import type { ChangeStores, StoresTogether } from "../ports/stores-together.js";
import { endUserSessions } from "./session-lifecycle.js";

/**
 * `stores.together` when it covers the users, sessions, allowlist and single-use-token stores
 * (they live in one database), else undefined: a change whose stores it cannot all include in one
 * transaction relies on its fail-safe order alone. Said once in the log when it does not cover them.
 */
export function coveringTogether(
  stores: ChangeStores & { together?: StoresTogether | undefined },
  logger: Logger,
): StoresTogether | undefined {
  const { together } = stores;
  if (!together) return undefined;
  const outside = (["users", "sessions", "allowlist", "singleUseTokens"] as const).filter(
    (name) => !together.covers(stores[name]),
  );
  if (outside.length === 0) return together;
  logger.info(
    { event: "stores.together_unused", outside },
    "stores.together does not cover every store a password change writes: changes rely on their fail-safe order",
  );
  return undefined;
}

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
