import type { EmailService } from "../emails/email-service.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { Logger } from "../ports/logger.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { type SessionDeps, type SessionTokens, startSession } from "./start-session.js";

/** A completed sign-in: a new session's tokens. */
export type SignedIn = { twoFactorRequired: false } & SessionTokens;

/** What finishing a sign-in needs. */
export interface FinishLoginDeps extends SessionDeps {
  users: UserStore;
  logger: Logger;
  emails: EmailService;
  events: SecurityEvents;
  translator: { defaultLocale: string };
  options: SessionDeps["options"] & { email: { loginAlerts: boolean } };
}

/**
 * The end of every successful sign-in (password alone, password and second factor or recovery
 * code, identity provider, `sessions.create`): a new session with fresh tokens, the sign-in
 * recorded on the user (`lastSignInAt`), the login alert unless it is the account's first
 * sign-in, and the `login.succeeded` and `session.created` events.
 */
export async function finishLogin(
  ctx: FinishLoginDeps,
  user: UserRecord,
  stated: { browser?: string | undefined; os?: string | undefined } | undefined,
  request: RequestContext,
  /** Says how the user signed in, in the `login.succeeded` and `session.created` events (e.g. `oidc:github`). */
  reason?: string,
  /**
   * Set when a recovery code stood in for the second factor: the codes left. The owner then gets
   * the `recovery-code-used` notice instead of the login alert, whatever `email.loginAlerts` says.
   */
  recoveryCodesLeft?: number,
): Promise<SignedIn> {
  const locale = request.locale ?? ctx.translator.defaultLocale;
  const { record, ...tokens } = await startSession(ctx, user, stated, request);
  // The account's first sign-in is the new user themselves (or the seeded account's owner): no alert.
  const first = await recordSignIn(ctx, user, record.createdAt);
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
  else if (ctx.options.email.loginAlerts && ctx.emails.enabled && !first) notice("login-alert");
  const details = { ...request, userId: user.id, sessionId: tokens.sessionId, ...(reason ? { reason } : {}) };
  ctx.events.emit("login.succeeded", details);
  ctx.events.emit("session.created", details);
  return { twoFactorRequired: false, ...tokens };
}

/** User stores already warned about not keeping `lastSignInAt`, so the warning is logged once. */
const untracked = new WeakSet<UserStore>();

/**
 * Sets the user's `lastSignInAt` to `at`; true when this was the account's first sign-in. A
 * store without `recordSignIn` gets a read-then-update (not atomic), and one that keeps no
 * `lastSignInAt` at all makes every sign-in count as a later one (alerts on), with one warning.
 * A store failure here is logged and counts as a later sign-in: the session already exists.
 */
async function recordSignIn(ctx: FinishLoginDeps, user: UserRecord, at: number): Promise<boolean> {
  const { users, logger } = ctx;
  try {
    if (users.recordSignIn) return await users.recordSignIn(user.id, at);
    const updated = await users.update(user.id, { lastSignInAt: at });
    if (updated?.lastSignInAt === at) return user.lastSignInAt == null;
    if (updated && !untracked.has(users)) {
      untracked.add(users);
      logger.warn(
        { event: "users.sign_in_untracked" },
        "stores.users has no recordSignIn and keeps no lastSignInAt: every sign-in sends a login alert, the first one too",
      );
    }
    return false;
  } catch (error) {
    logger.error(
      { event: "users.record_sign_in_failed", userId: user.id, err: String(error) },
      "could not record the sign-in; it counts as a later one",
    );
    return false;
  }
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
