import type { EmailService } from "../emails/email-service.js";
import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import { type Call, type Principal, type RequestContext, toUser, type User } from "../model.js";
import type { Logger } from "../ports/logger.js";
import type { TwoFactorMethod, TwoFactorSettings, UserRecord, UserStore } from "../ports/user-store.js";
import { currentUser } from "../sessions/current-user.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { signedIn } from "../sessions/signed-in.js";
import type { StepUpTokens } from "./step-up-token.js";

/** What the 2FA settings use cases share. */
export interface SettingsDeps {
  users: UserStore;
  stepUpTokens: StepUpTokens;
  logger: Logger;
  emails: EmailService;
  translator: { defaultLocale: string };
  events: SecurityEvents;
}

/**
 * Turning a 2FA method on needs a verified address (`EMAIL_NOT_VERIFIED`): otherwise whoever
 * registered someone else's address first could guard that account with their own second
 * factor, which the owner's password reset would not remove (docs/limits.md, security.md D6).
 */
export function requireVerifiedAddress(user: UserRecord): void {
  if (!user.emailVerified) throw new AuthError("EMAIL_NOT_VERIFIED");
}

/**
 * Every change to the account's security settings needs a signed-in call (`AUTHENTICATION_REQUIRED`)
 * with a live step-up token of this user and session (`STEP_UP_REQUIRED`).
 */
export async function requireStepUp(
  ctx: Pick<SettingsDeps, "users" | "stepUpTokens">,
  call: Call,
): Promise<UserRecord> {
  const principal = signedIn(call);
  assertNotImpersonating(principal);
  await ctx.stepUpTokens.verify(call.stepUpToken, principal.userId, principal.sessionId);
  return currentUser(ctx, principal);
}

/**
 * The checks before a 2FA method is turned on, in this order: a live step-up token
 * (`STEP_UP_REQUIRED`), the input (`parse`, `VALIDATION_FAILED`), a verified address
 * (`EMAIL_NOT_VERIFIED`). Returns the user's record, the call's principal and the parsed input.
 */
export async function checkEnabling<I>(
  ctx: Pick<SettingsDeps, "users" | "stepUpTokens">,
  call: Call,
  parse: () => I,
): Promise<{ user: UserRecord; principal: Principal; input: I }> {
  const user = await requireStepUp(ctx, call);
  const input = parse();
  requireVerifiedAddress(user);
  return { user, principal: signedIn(call), input };
}

/** Saves new 2FA settings, keeps `preferredMethod` valid, and mails the security alert. */
export async function saveTwoFactor(
  ctx: SettingsDeps,
  user: UserRecord,
  next: TwoFactorSettings,
  change: { change: "added" | "removed"; method: TwoFactorMethod },
  request: RequestContext,
): Promise<User> {
  const methods = next.methods;
  const preferredMethod =
    next.preferredMethod && methods.includes(next.preferredMethod)
      ? next.preferredMethod
      : (methods[0] ?? null);
  const twoFactor: TwoFactorSettings = {
    ...next,
    preferredMethod,
    ...(methods.length === 0 ? { recoveryCodeHashes: [] } : {}),
    ...(methods.includes("totp") ? {} : { totpSecretEncrypted: null }),
  };
  const updated = await guardPort("DATABASE_FAILURE", () => ctx.users.update(user.id, { twoFactor }));
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  ctx.logger.warn(
    { event: `two_factor.${change.change}`, userId: user.id, method: change.method, ip: request.ip ?? null },
    "2FA changed",
  );
  ctx.events.emit(change.change === "added" ? "two_factor.enabled" : "two_factor.disabled", {
    ...request,
    userId: user.id,
    reason: change.method,
  });
  ctx.emails.sendInBackground(
    "two-factor-changed",
    user.email,
    request.locale ?? ctx.translator.defaultLocale,
    {
      name: user.name,
      ...change,
      link: ctx.emails.link("securitySettings"),
    },
  );
  return toUser(updated);
}
