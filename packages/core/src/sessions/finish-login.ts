import type { DeviceTokens } from "../devices/device-token.js";
import type { EmailService } from "../emails/email-service.js";
import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { CooldownKeys } from "../ports/joint-stores.js";
import type { Logger } from "../ports/logger.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { assertNotLocked, isLocked } from "./account-lock.js";
import { endSession } from "./session-lifecycle.js";
import { type SessionDeps, type SessionTokens, startSession } from "./start-session.js";

/**
 * A completed sign-in: a new session's tokens, and the browser's device token naming the account
 * (the HTTP layer sets it as the device cookie; docs/security.md).
 */
export type SignedIn = { twoFactorRequired: false; deviceToken: string } & SessionTokens & {
    /** Set when the password just used was found in the breach corpus (`breachedPasswords`); absent otherwise. */
    passwordBreached?: true;
  };

/** What finishing a sign-in needs. */
export interface FinishLoginDeps extends SessionDeps {
  users: UserStore;
  logger: Logger;
  emails: EmailService;
  events: SecurityEvents;
  devices: DeviceTokens;
  translator: { defaultLocale: string };
  options: SessionDeps["options"] & { email: { loginAlerts: boolean } };
}

/** How the user signed in, for `finishLogin`. */
export interface SignInDetails {
  /** Says how the user signed in, in the `login.succeeded` and `session.created` events (e.g. `oidc:github`). */
  reason?: string | undefined;
  /**
   * Set when a recovery code stood in for the second factor: the codes left. The owner then gets
   * the `recovery-code-used` notice instead of the login alert, whatever `email.loginAlerts` says.
   */
  recoveryCodesLeft?: number | undefined;
  /**
   * Set by a password sign-in: the password hash the password was checked against (as stored
   * after a rehash). Once the session is written the user is read again; when the hash differs
   * (a reset or `setPassword` landed between the check and the session, after its session purge)
   * or the user is gone, the session is deleted and the sign-in fails with `INVALID_CREDENTIALS`.
   */
  verifiedPasswordHash?: string | undefined;
  /** `false`: the user chose not to stay signed in; the session's cookies have no Max-Age. Default true. */
  rememberMe?: boolean | undefined;
  /** The account was created by this sign-in (an identity-provider sign-up): like a registration, no login alert. */
  registered?: boolean | undefined;
  /** The password of this sign-in was found in the breach corpus: the result says `passwordBreached: true`. */
  passwordBreached?: boolean | undefined;
  /**
   * A password sign-in's throttle keys, cleared by the session's joint write (`SignInRecord.clear`);
   * only when `joint.allowAccessTokenWithSessionAndRecordSignIn` exists.
   */
  clearThrottle?: CooldownKeys | undefined;
}

/**
 * The end of every successful sign-in (password alone, password and second factor or recovery
 * code, identity provider, `sessions.create`): a new session with fresh tokens, the sign-in
 * recorded on the user (`lastSignInAt`), the login alert when the browser's device token
 * (`request.deviceToken`) does not name the account, the device token handed back naming it, and
 * the `login.succeeded` and `session.created` events.
 */
export async function finishLogin(
  ctx: FinishLoginDeps,
  user: UserRecord,
  stated: { browser?: string | undefined; os?: string | undefined } | undefined,
  request: RequestContext,
  {
    reason,
    recoveryCodesLeft,
    verifiedPasswordHash,
    rememberMe,
    registered,
    passwordBreached,
    clearThrottle,
  }: SignInDetails = {},
): Promise<SignedIn> {
  const locale = request.locale ?? ctx.translator.defaultLocale;
  assertNotLocked(user);
  const { record, signInRead, ...tokens } = await startSession(
    ctx,
    user,
    stated,
    request,
    rememberMe !== false,
    undefined,
    { passwordHash: verifiedPasswordHash, clear: clearThrottle },
  );
  const recorded = await endIfChanged(ctx, user.id, tokens.sessionId, verifiedPasswordHash, request, {
    at: record.createdAt,
    signInRead,
  });
  // A browser that signed in to the account before, or registered it, is its owner's: no alert.
  const device = ctx.devices.read(request.deviceToken);
  const known = registered === true || ctx.devices.knows(device, user.id);
  if (!recorded) await recordSignIn(ctx, user, record.createdAt);
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
  else if (ctx.options.email.loginAlerts && ctx.emails.enabled && !known) notice("login-alert");
  const details = {
    ...request,
    userId: user.id,
    sessionId: tokens.sessionId,
    device: { browser: record.browser, os: record.os },
    ...(reason ? { reason } : {}),
  };
  ctx.events.emit("login.succeeded", details);
  ctx.events.emit("session.created", details);
  return {
    twoFactorRequired: false,
    ...tokens,
    deviceToken: ctx.devices.remember(device, user.id),
    ...(passwordBreached === true ? { passwordBreached: true as const } : {}),
  };
}

/**
 * Closes the window between the checks of a sign-in and its session: a lock (`admin.lockUser`)
 * or a password set meanwhile ran its session purge before this session was written, so this
 * sign-in ends the session itself (with its allowlisted access token) and fails: `ACCOUNT_LOCKED`,
 * or, for a password sign-in (`verifiedPasswordHash`), as a sign-in with a password that no
 * longer holds. Not a wrong guess: the login limits already counted the attempt as a success.
 * When the re-read fails, the session is deleted (best effort: no one holds its tokens) and the
 * failure is answered. With `recordSignInIfUnchanged` the re-read also records the sign-in at `at`
 * when the checks pass (one statement where the store can): true then, and the caller records
 * nothing more. `signInRead`: the session's own write already did that read and record (the
 * joint `allowAccessTokenWithSessionAndRecordSignIn`), so nothing is read again.
 */
async function endIfChanged(
  ctx: FinishLoginDeps,
  userId: string,
  sessionId: string,
  verifiedPasswordHash: string | undefined,
  request: RequestContext,
  { at, signInRead }: { at: number; signInRead: { read: UserRecord | null } | null },
): Promise<boolean> {
  const { users } = ctx;
  const recordIfUnchanged = users.recordSignInIfUnchanged;
  let current: UserRecord | null;
  try {
    current =
      signInRead !== null
        ? signInRead.read
        : await guardPort("DATABASE_FAILURE", () =>
            recordIfUnchanged
              ? recordIfUnchanged.call(users, userId, at, verifiedPasswordHash)
              : users.findById(userId),
          );
  } catch (error) {
    await endSession(ctx, sessionId).catch(() => null);
    throw error;
  }
  if (current !== null && isLocked(current)) {
    await endSession(ctx, sessionId);
    throw new AuthError("ACCOUNT_LOCKED");
  }
  const recorded = signInRead !== null || recordIfUnchanged !== undefined;
  if (verifiedPasswordHash === undefined) return recorded;
  if (current !== null && current.passwordHash === verifiedPasswordHash) return recorded;
  await endSession(ctx, sessionId);
  ctx.logger.info(
    { event: "login.password_changed", userId, ip: request.ip ?? null },
    "the password changed while signing in; the new session was ended",
  );
  ctx.events.emit("login.failed", { ...request, userId, reason: "password_changed" });
  throw new AuthError("INVALID_CREDENTIALS");
}

/** User stores already warned about not keeping `lastSignInAt`, so the warning is logged once. */
const untracked = new WeakSet<UserStore>();

/**
 * Sets the user's `lastSignInAt` to `at`; true when this was the account's first sign-in. A
 * store without `recordSignIn` gets a read-then-update (not atomic), and one that keeps no
 * `lastSignInAt` at all gets one warning. A store failure here is logged: the session already
 * exists.
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
        "stores.users has no recordSignIn and keeps no lastSignInAt: sign-ins are not recorded on the user",
      );
    }
    return false;
  } catch (error) {
    logger.error(
      { event: "users.record_sign_in_failed", userId: user.id, err: String(error) },
      "could not record the sign-in",
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
