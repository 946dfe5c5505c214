import { AuthError, type ErrorCode, guardPort, isInfrastructureFailure } from "../errors.js";
import type { Limits } from "../limits/limits.js";
import type { ThrottleAttempt } from "../limits/throttle.js";
import type { RequestContext } from "../model.js";
import type { TokenRecord } from "../ports/single-use-token-store.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { EXPIRED_TOKEN_GRACE_MS } from "./purposes.js";
import { holdSingleUseToken, issueSingleUseToken, type TokenDeps } from "./single-use-token.js";

/**
 * The token of an emailed link (reset, verification): single use, bound to the user and the exact
 * address it is sent to (a changed address makes it invalid), kept past its expiry for the grace
 * period so a late click is told "expired" rather than "invalid".
 */
export function issueLinkToken(
  deps: TokenDeps,
  user: Pick<UserRecord, "id" | "email">,
  link: { purpose: string; ttlMs: number; failureCode: ErrorCode; replaceOthers?: boolean },
): Promise<string> {
  return issueSingleUseToken(deps, {
    purpose: link.purpose,
    userId: user.id,
    ttlMs: link.ttlMs,
    data: { email: user.email },
    graceMs: EXPIRED_TOKEN_GRACE_MS,
    failureCode: link.failureCode,
    ...(link.replaceOthers ? { replaceOthers: true } : {}),
  });
}

export interface LinkTokenFlow<T> {
  purpose: string;
  token: string | undefined;
  request: RequestContext;
  /** The 401 codes of this flow. */
  invalid: ErrorCode;
  expired: ErrorCode;
  /** Runs before `invalid` is thrown for an unknown token (it may throw a better answer itself). */
  whenUnknown?: (fromIp: ThrottleAttempt) => Promise<void>;
  /**
   * What the link authorizes, for the user it was sent to. The token is held (claimed) while this
   * runs; `consume` deletes it for good: call it once the link's effect is complete, before the
   * steps that may fail without undoing it (events, emails). Given `remove`, a store call that
   * deletes the token among others (all the user's tokens of the purpose), that call consumes it.
   * When `use` returns without calling it, the token is consumed after `use` returns.
   */
  use(
    user: UserRecord,
    record: TokenRecord,
    consume: (remove?: () => Promise<unknown>) => Promise<void>,
  ): Promise<T>;
}

/**
 * The emailed-link flows (reset, verification): an unknown token counts against the IP's
 * `invalidTokens` limit; the token is claimed atomically (one request at a time holds it), checked
 * for expiry, bound to the user and the exact address it was sent to, and consumed only once the
 * link's effect is complete. When `use` fails in a store (or the process dies) before that, the
 * token is released (or its claim runs out), so the link still works; an answer about the input
 * (a changed address, an already verified one) consumes it.
 */
export async function useLinkToken<T>(
  deps: TokenDeps & { limits: Limits; users: UserStore },
  flow: LinkTokenFlow<T>,
): Promise<T> {
  const fromIp = await deps.limits.ip("invalidTokens", flow.request);
  const held = await holdSingleUseToken(deps, flow.purpose, flow.token, { graceMs: EXPIRED_TOKEN_GRACE_MS });
  if (!held) {
    await flow.whenUnknown?.(fromIp);
    throw new AuthError(flow.invalid);
  }
  await fromIp.succeeded();
  if (held.expired) {
    await held.consume().catch(() => held.release());
    throw new AuthError(flow.expired);
  }
  const { record } = held;
  let consumed = false;
  const consume = async (remove?: () => Promise<unknown>) => {
    if (consumed) return;
    if (remove) await guardPort("DATABASE_FAILURE", remove);
    else await held.consume();
    consumed = true;
  };
  try {
    const user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(record.userId));
    if (!user || user.email !== record.data?.email) throw new AuthError(flow.invalid);
    const result = await flow.use(user, record, consume);
    await consume();
    return result;
  } catch (error) {
    if (!consumed) {
      if (isInfrastructureFailure(error)) await held.release();
      else await consume().catch(() => held.release());
    }
    throw error;
  }
}
