import { AuthError } from "../errors.js";
import type { Principal } from "../model.js";
import type { SessionRecord } from "../ports/session-store.js";

/** How long an admin's impersonation session lasts at most, from its creation: one hour. */
export const IMPERSONATION_MAX_MS = 3600 * 1000;

/** The ms since the epoch when an impersonation session ends (null: not an impersonation). */
export function impersonationEnd(
  session: Pick<SessionRecord, "createdAt" | "impersonatedBy">,
): number | null {
  return session.impersonatedBy === undefined ? null : session.createdAt + IMPERSONATION_MAX_MS;
}

/**
 * The whole seconds an access token of `session` may live from `now`: undefined (the configured
 * lifetime) for a normal session, at most what is left of an impersonation's hour.
 */
export function accessTokenTtlFor(
  session: Pick<SessionRecord, "createdAt" | "impersonatedBy">,
  now: number,
): number | undefined {
  const end = impersonationEnd(session);
  return end === null ? undefined : Math.max(1, Math.floor((end - now) / 1000));
}

/**
 * An impersonation session cannot step up, so it changes no security setting, and cannot use the
 * admin routes: 403 `IMPERSONATION_NOT_ALLOWED`. Every step-up (password, 2FA, identity provider,
 * passkey) and every check of a step-up token calls it.
 */
export function assertNotImpersonating(principal: Principal | undefined): void {
  if (principal?.impersonatedBy !== undefined) throw new AuthError("IMPERSONATION_NOT_ALLOWED");
}
