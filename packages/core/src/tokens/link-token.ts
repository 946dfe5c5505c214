import { AuthError, type ErrorCode, guardPort } from "../errors.js";
import type { Limits } from "../limits/limits.js";
import type { ThrottleAttempt } from "../limits/throttle.js";
import type { RequestContext } from "../model.js";
import type { TokenRecord } from "../ports/session-store.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { EXPIRED_TOKEN_GRACE_MS } from "./purposes.js";
import {
  consumeSingleUseToken,
  issueSingleUseToken,
  spendToken,
  type TokenDeps,
} from "./single-use-token.js";

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
  /** What the link authorizes, for the user it was sent to. */
  use(user: UserRecord, record: TokenRecord): Promise<T>;
}

/**
 * The emailed-link flows (reset, verification): an unknown token counts against the IP's
 * `invalidTokens` limit; the token is consumed atomically, checked for expiry, bound to the user
 * and the exact address it was sent to, and given back when `use` fails in a store.
 */
export async function useLinkToken<T>(
  deps: TokenDeps & { limits: Limits; users: UserStore },
  flow: LinkTokenFlow<T>,
): Promise<T> {
  const fromIp = await deps.limits.ip("invalidTokens", flow.request);
  const taken = await consumeSingleUseToken(deps, flow.purpose, flow.token);
  if (!taken) {
    await flow.whenUnknown?.(fromIp);
    throw new AuthError(flow.invalid);
  }
  await fromIp.succeeded();
  if (taken.expired) throw new AuthError(flow.expired);
  const { record } = taken;
  const work = async () => {
    const user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(record.userId));
    if (!user || user.email !== record.data?.email) throw new AuthError(flow.invalid);
    return flow.use(user, record);
  };
  return spendToken(deps, record, work, EXPIRED_TOKEN_GRACE_MS);
}
