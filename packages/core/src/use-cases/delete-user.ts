import type { AuthContext } from "../context.js";
import { EMAIL_KINDS } from "../email-kinds.js";
import { emailCooldownKey } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import {
  CHALLENGE_PURPOSE,
  EMAIL_CODE_PURPOSE,
  EMAIL_VERIFICATION_PURPOSE,
  EMAIL_VERIFICATION_USED_PURPOSE,
  OAUTH_STATE_PURPOSE,
  PASSKEY_CHALLENGE_PURPOSE,
  PASSWORD_RESET_PURPOSE,
  TOTP_SETUP_PURPOSE,
} from "../tokens/purposes.js";
import { parseInput, userIdField } from "../validation.js";

const PURPOSES = [
  PASSWORD_RESET_PURPOSE,
  EMAIL_VERIFICATION_PURPOSE,
  EMAIL_VERIFICATION_USED_PURPOSE,
  CHALLENGE_PURPOSE,
  EMAIL_CODE_PURPOSE,
  TOTP_SETUP_PURPOSE,
  OAUTH_STATE_PURPOSE,
  PASSKEY_CHALLENGE_PURPOSE,
];

/**
 * Deletes a user from a script or back office, with everything kept about them: sessions (their
 * tokens stop working at once), single-use tokens of every purpose, email cooldowns and throttle
 * counters, identity-provider links, passkeys, activity. `USER_NOT_FOUND` for an unknown id.
 */
export async function deleteUser(ctx: AuthContext, _call: Call, userId: string): Promise<{ success: true }> {
  const id = parseInput(userIdField, userId);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(id));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  await endUserSessions(ctx, id);
  for (const purpose of PURPOSES) {
    await guardPort("DATABASE_FAILURE", () => ctx.singleUseTokens.deleteUserTokens(id, purpose));
  }
  for (const kind of EMAIL_KINDS) {
    await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
      ctx.cooldowns.release(emailCooldownKey(kind, user.email)),
    );
  }
  if (ctx.identities) {
    const identities = ctx.identities;
    const links = await guardPort("DATABASE_FAILURE", () => identities.listByUser(id));
    for (const link of links) await guardPort("DATABASE_FAILURE", () => identities.unlink(id, link.provider));
  }
  const passkeys = ctx.passkeys;
  if (passkeys) await guardPort("DATABASE_FAILURE", () => passkeys.deleteAllForUser(id));
  const activity = ctx.activity.store;
  if (activity) await guardPort("DATABASE_FAILURE", () => activity.deleteUserActivity(id));
  await ctx.limits.clearPassword(user.email);
  await ctx.limits.clearTwoFactor(id);
  if (!(await guardPort("DATABASE_FAILURE", () => ctx.users.delete(id))))
    throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("user.deleted", { userId: id, reason: "admin" });
  return { success: true };
}
