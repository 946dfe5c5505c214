import type { EmailService } from "../emails/email-service.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { type SessionDeps, type SessionTokens, startSession } from "./start-session.js";

/** Sign-ins this soon after the account was created send no login alert. */
const NEW_ACCOUNT_MS = 10 * 60 * 1000;

/** A completed sign-in: a new session's tokens. */
export type SignedIn = { twoFactorRequired: false } & SessionTokens;

/** What finishing a sign-in needs. */
export interface FinishLoginDeps extends SessionDeps {
  emails: EmailService;
  events: SecurityEvents;
  translator: { defaultLocale: string };
  options: SessionDeps["options"] & { email: { loginAlerts: boolean } };
}

/**
 * The end of every successful sign-in (password alone, or password and second factor): a new
 * session with fresh tokens, the login alert, the log line.
 */
export async function finishLogin(
  ctx: FinishLoginDeps,
  user: UserRecord,
  stated: { browser?: string | undefined; os?: string | undefined } | undefined,
  request: RequestContext,
  /** Says how the user signed in, in the `login.succeeded` event (e.g. `oidc:github`). */
  reason?: string,
  /**
   * Set when a recovery code stood in for the second factor: the codes left. The owner then gets
   * the `recovery-code-used` notice instead of the login alert, whatever `email.loginAlerts` says.
   */
  recoveryCodesLeft?: number,
): Promise<SignedIn> {
  const locale = request.locale ?? ctx.translator.defaultLocale;
  const { record, ...tokens } = await startSession(ctx, user, stated, request);
  // The sign-in right after signing up is the new user themselves: no alert for it.
  const newAccount = record.createdAt - user.createdAt < NEW_ACCOUNT_MS;
  const notice = (kind: "login-alert" | "recovery-code-used") =>
    ctx.emails.sendInBackground(kind, user.email, locale, {
      name: user.name,
      link: ctx.emails.link("securitySettings"),
      recoveryCodesLeft,
      details: {
        time: formatEmailTime(record.createdAt, locale),
        browser: record.browser,
        os: record.os,
        ip: record.ip,
      },
    });
  if (recoveryCodesLeft !== undefined) notice("recovery-code-used");
  else if (ctx.options.email.loginAlerts && ctx.emails.enabled && !newAccount) notice("login-alert");
  ctx.events.emit("login.succeeded", {
    ...request,
    userId: user.id,
    sessionId: tokens.sessionId,
    ...(reason ? { reason } : {}),
  });
  return { twoFactorRequired: false, ...tokens };
}

/** Time of a sign-in as the recipient reads it, in their locale (UTC). */
function formatEmailTime(timestampMs: number, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "long", timeZone: "UTC" }).format(
      timestampMs,
    );
  } catch {
    return new Date(timestampMs).toISOString();
  }
}
