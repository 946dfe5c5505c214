import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Principal } from "../model.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { EmailKind } from "../ports/mailer.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";

/** The signed-in user's record; `USER_NOT_FOUND` when the account is gone. */
export async function currentUser(deps: { users: UserStore }, principal: Principal): Promise<UserRecord> {
  const user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return user;
}

/** `{ remaining }` seconds until another email of `kind` can go to the signed-in user's address (0: now). */
export async function currentUserCooldown(
  deps: { users: UserStore; cooldowns: CooldownStore; options: { email: { cooldownSeconds: number } } },
  principal: Principal,
  kind: EmailKind,
): Promise<{ remaining: number }> {
  const user = await currentUser(deps, principal);
  return cooldownRemaining(deps, kind, user.email);
}
