import type { AuthContext } from "../context.js";
import type { Call, User } from "../model.js";
import { toUser } from "../model.js";
import { activeOrganizationOf } from "../organizations/active.js";
import { isBackOfficeAdmin } from "../sessions/admin-actor.js";
import { currentUserForAnswer } from "../sessions/current-user.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The signed-in user; `USER_NOT_FOUND` when the account was deleted after the token was issued.
 * In an admin's impersonation session it says who: `impersonatedBy`. With organizations on, the
 * access token's active organization (`activeOrganization`, null when none). With the back office
 * on, whether `admin.authorize` allows the caller (`isAdmin`), asked with the record read here.
 */
export async function getCurrentUser(ctx: AuthContext, call: Call): Promise<User> {
  const principal = signedIn(call);
  const record = await currentUserForAnswer(ctx, principal);
  // The optional fields are set on the fresh answer in their order, not spread into copies: on
  // Node 20 a spread followed by another key takes a slow path (about 2 µs each on this route).
  const user = toUser(record);
  if (principal.impersonatedBy !== undefined) user.impersonatedBy = principal.impersonatedBy;
  if (ctx.options.admin.authorize !== undefined)
    user.isAdmin = await isBackOfficeAdmin(ctx, principal, record);
  // With organizations on: the token's active organization, its membership read now.
  if (ctx.options.organizations !== undefined)
    user.activeOrganization = await activeOrganizationOf(ctx, principal);
  return user;
}
