import { AuthError } from "../errors.js";
import type { UserRecord } from "../ports/user-store.js";

/** Whether an admin locked the account (`admin.lockUser`) and did not unlock it since. */
export function isLocked(user: Pick<UserRecord, "lockedAt">): boolean {
  return user.lockedAt != null;
}

/**
 * The one check every way of signing in makes before it hands out anything (a session, a 2FA
 * challenge, a refreshed token): 403 `ACCOUNT_LOCKED` for a locked account. Password login,
 * 2FA completion and recovery codes, refresh, identity-provider sign-in, `sessions.create` and
 * the required password change call it (through `finishLogin` and the steps before it); a new way
 * of signing in (passkeys, email sign-in) must call it too, on the record it is about to sign in,
 * and go through `finishLogin`, which checks again once the session is written (a lock that lands
 * in between ends it).
 */
export function assertNotLocked(user: Pick<UserRecord, "lockedAt">): void {
  if (isLocked(user)) throw new AuthError("ACCOUNT_LOCKED");
}
