import { eraseUser } from "../account/erase-user.js";
import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call } from "../model.js";
import { requireStepUp } from "../two-factor/settings.js";

/**
 * The signed-in user (with a step-up) deletes their account (docs/concepts.md, "Account self-service"): the account and
 * everything stored about it goes (`eraseUser`: sessions, the caller's too, allowlisted access
 * tokens, single-use tokens, identity-provider links, activity, cooldowns and throttle counters
 * of the address and the account), a `user.deleted` event (reason `self`) is emitted and the old
 * address gets the "account deleted" email. `USER_NOT_FOUND` when the account is already gone.
 */
export async function deleteAccount(ctx: AuthContext, call: Call): Promise<{ success: true }> {
  const user = await requireStepUp(ctx, call);
  const { request = {} } = call;
  if (!(await eraseUser(ctx, user))) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("user.deleted", {
    ...request,
    userId: user.id,
    sessionId: call.principal?.sessionId ?? null,
    reason: "self",
  });
  ctx.emails.sendInBackground("account-deleted", user.email, request.locale ?? ctx.translator.defaultLocale, {
    name: user.name,
  });
  return { success: true };
}
