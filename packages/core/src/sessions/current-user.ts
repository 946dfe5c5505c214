import { cooldownRemaining } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import { type Principal, principalUserRead } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { EmailKind } from "../ports/mailer.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";

/** The signed-in user's record; `USER_NOT_FOUND` when the account is gone. */
export async function currentUser(deps: { users: UserStore }, principal: Principal): Promise<UserRecord> {
  const user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return user;
}

/**
 * How long the record `authenticate` read with the allowlist entry stands in for a fresh read, in
 * milliseconds of the core's clock: the span of one request. A principal kept longer (a host that
 * authenticates once for a long-lived connection) reads the store again.
 */
export const USER_READ_MAX_AGE_MS = 1_000;

/**
 * The signed-in user's record for a read-only answer (GET /me, the verification send): the one
 * `authenticate` read together with the allowlist entry when it is under `USER_READ_MAX_AGE_MS`
 * old, else `currentUser`'s read. Use cases that change the account or check a secret read anew.
 */
export async function currentUserForAnswer(
  deps: { users: UserStore; clock: Clock },
  principal: Principal,
): Promise<UserRecord> {
  const read = principalUserRead(principal);
  if (read !== undefined && (read.user === null || read.user.id === principal.userId)) {
    const age = deps.clock.now() - read.at;
    if (age >= 0 && age <= USER_READ_MAX_AGE_MS) {
      if (read.user === null) throw new AuthError("USER_NOT_FOUND");
      return read.user;
    }
  }
  return currentUser(deps, principal);
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
