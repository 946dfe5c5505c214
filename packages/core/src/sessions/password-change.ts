import { PasswordChangeRequiredError } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { PASSWORD_CHANGE_PURPOSE } from "../tokens/purposes.js";
import { hashToken } from "../tokens/random.js";
import { issueSingleUseToken, type TokenDeps } from "../tokens/single-use-token.js";

/** How long the token of a required password change lasts: ten minutes. */
export const PASSWORD_CHANGE_TTL_MS = 10 * 60 * 1000;

/** A fingerprint of the password hash a change token was issued for (the hash itself never leaves the users store). */
export const passwordFingerprint = (passwordHash: string | null) => hashToken(passwordHash ?? "");

/**
 * The end of a password sign-in whose account must set a new password first: no session, a
 * single-use token (ten minutes, a newer one replaces the older, bound to the user and the
 * password just checked) and 403 `PASSWORD_CHANGE_REQUIRED` carrying it. The client sends it with
 * the new password to `POST /password/change-required` (`completeRequiredPasswordChange`), which
 * then signs in (or starts the second factor).
 */
export async function requirePasswordChangeAtLogin(
  ctx: TokenDeps & { events: SecurityEvents },
  user: UserRecord,
  checked: { verifiedPasswordHash: string },
  request: RequestContext,
): Promise<never> {
  const token = await issueSingleUseToken(ctx, {
    purpose: PASSWORD_CHANGE_PURPOSE,
    userId: user.id,
    ttlMs: PASSWORD_CHANGE_TTL_MS,
    data: { password: passwordFingerprint(checked.verifiedPasswordHash) },
    replaceOthers: true,
    failureCode: "DATABASE_FAILURE",
  });
  ctx.events.emit("login.failed", { ...request, userId: user.id, reason: "password_change_required" });
  throw new PasswordChangeRequiredError(token);
}
