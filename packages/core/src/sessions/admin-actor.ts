import { AuthError, guardPort } from "../errors.js";
import { type SecurityEvents, withActor } from "../events.js";
import { type Call, type Principal, type RequestContext, toUser } from "../model.js";
import type { Logger } from "../ports/logger.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { isLocked } from "./account-lock.js";
import { assertNotImpersonating } from "./impersonation.js";
import { signedIn } from "./signed-in.js";

/** What deciding who acts in the back office needs. */
export interface AdminActorDeps {
  users: UserStore;
  /** `StepUpTokens.verify` (two-factor/step-up-token.ts), by shape: sessions/ does not import two-factor/. */
  stepUpTokens: { verify(token: string | undefined, userId: string, sessionId: string): Promise<void> };
  options: { admin: { authorize?: ((...args: never[]) => unknown) | undefined } };
}

/**
 * Who performs a back-office or host operation, once `asAdmin` or `asHost` decided it: the actor
 * its events name, and the request it runs for. The operations take this instead of a `Call`, so
 * none can be bound without one of the two deciding first.
 */
export interface Acting {
  /** The admin's user id (`asAdmin`), else the host's `call.actor` or `"host"` (`asHost`). */
  actor: string;
  request: RequestContext | undefined;
}

/** An operation of the back office or the host: the context, who acts, its input. */
type ActingOperation<D, I extends unknown[], R> = (ctx: D, acting: Acting, ...input: I) => Promise<R>;

/**
 * Who performs a back-office operation: always a signed-in caller (`AUTHENTICATION_REQUIRED`
 * without an issued principal, whatever `call.actor` says), not an impersonation
 * (`IMPERSONATION_NOT_ALLOWED`), whose user exists, is not locked and is allowed by
 * `admin.authorize` (`ADMIN_REQUIRED` otherwise, also without `authorize`), then a live step-up
 * token of that user and session (`STEP_UP_REQUIRED`). The actor is the admin's user id.
 */
export async function actingAdmin(ctx: AdminActorDeps, call: Call): Promise<string> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  const authorize = ctx.options.admin.authorize as
    | ((principal: unknown, user: unknown) => boolean | Promise<boolean>)
    | undefined;
  if (authorize === undefined) throw new AuthError("ADMIN_REQUIRED");
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

/**
 * Whether the back office would let `principal` in, short of the step-up (GET /me's `isAdmin`):
 * `admin.authorize` asked with the user record the caller already read, so no store read of its
 * own. False for an impersonation, a locked account, and when `authorize` throws (logged
 * `admin.authorize_failed`): a page's check never fails because of it.
 */
export async function isBackOfficeAdmin(
  ctx: Pick<AdminActorDeps, "options"> & { logger: Logger },
  principal: Principal,
  user: UserRecord,
): Promise<boolean> {
  const authorize = ctx.options.admin.authorize as
    | ((principal: unknown, user: unknown) => boolean | Promise<boolean>)
    | undefined;
  if (authorize === undefined || principal.impersonatedBy !== undefined || isLocked(user)) return false;
  try {
    return (await authorize(principal, toUser(user))) === true;
  } catch (error) {
    ctx.logger.error({ event: "admin.authorize_failed", err: error }, "admin.authorize threw for GET /me");
    return false;
  }
}

/**
 * `operation` as a back-office use case (`auth.admin.*`): it runs only once `actingAdmin` allowed
 * the call's principal, and acts as that admin (its events say `actorType: "admin"`).
 */
export function asAdmin<D extends AdminActorDeps & { events: SecurityEvents }, I extends unknown[], R>(
  operation: ActingOperation<D, I, R>,
): (ctx: D, call: Call, ...input: I) => Promise<R> {
  return async (ctx, call, ...input) => {
    const actor = await actingAdmin(ctx, call);
    return operation(withActor(ctx, "admin", actor), { actor, request: call.request }, ...input);
  };
}

/**
 * `operation` as a trusted host operation (`auth.host.*`): no caller is checked, the host's own
 * code decided; the actor is `call.actor`, else `"host"` (its events say `actorType: "host"`). A call with a principal (or a step-up
 * token) is refused with a `TypeError`: it means a request's caller, whose place is the back office.
 */
export function asHost<D extends { events: SecurityEvents }, I extends unknown[], R>(
  operation: ActingOperation<D, I, R>,
): (ctx: D, call: Call, ...input: I) => Promise<R> {
  return async (ctx, call, ...input) => {
    if (call.principal !== undefined || call.stepUpToken !== undefined)
      throw new TypeError(
        "auth.host.* takes no principal or step-up token: it checks no caller. Pass a request's caller to auth.admin.* instead.",
      );
    const acting = { actor: call.actor ?? "host", request: call.request };
    return operation(withActor(ctx, "host", call.actor ?? null), acting, ...input);
  };
}
