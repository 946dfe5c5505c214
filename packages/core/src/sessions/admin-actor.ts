import { AuthError, guardPort } from "../errors.js";
import { type Call, toUser } from "../model.js";
import type { UserStore } from "../ports/user-store.js";
import { isLocked } from "./account-lock.js";
import { signedIn } from "./signed-in.js";

/** What deciding who acts in the back office needs. */
export interface AdminActorDeps {
  users: UserStore;
  /** `StepUpTokens.verify` (two-factor/step-up-token.ts), by shape: sessions/ does not import two-factor/. */
  stepUpTokens: { verify(token: string | undefined, userId: string, sessionId: string): Promise<void> };
  options: { admin: { authorize?: ((...args: never[]) => unknown) | undefined } };
}

/**
 * Who performs a back-office operation, for its events. A host call without a principal is the
 * host's own decision: the actor is `call.actor`, else `"host"`. A call with a principal (every
 * admin route) must come from an admin: an issued principal (`AUTHENTICATION_REQUIRED`), not an
 * impersonation, whose user exists, is not locked and is allowed by `admin.authorize`
 * (`ADMIN_REQUIRED` otherwise, also without `authorize`), then a live step-up token of that user
 * and session (`STEP_UP_REQUIRED`). The actor is then the admin's user id.
 */
export async function actingAdmin(ctx: AdminActorDeps, call: Call): Promise<string> {
  if (call.principal === undefined) return call.actor ?? "host";
  const principal = signedIn(call);
  const authorize = ctx.options.admin.authorize as
    | ((principal: unknown, user: unknown) => boolean | Promise<boolean>)
    | undefined;
  if (authorize === undefined || principal.impersonatedBy !== undefined)
    throw new AuthError("ADMIN_REQUIRED");
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (user === null || isLocked(user)) throw new AuthError("ADMIN_REQUIRED");
  let allowed: boolean;
  try {
    allowed = (await authorize(principal, toUser(user))) === true;
  } catch (error) {
    throw new AuthError("INTERNAL_ERROR", { cause: error });
  }
  if (!allowed) throw new AuthError("ADMIN_REQUIRED");
  await ctx.stepUpTokens.verify(call.stepUpToken, principal.userId, principal.sessionId);
  return principal.userId;
}
