import type { AuthContext } from "../context.js";
import type { Device } from "../devices/device-token.js";
import { isTrustedBrowser } from "../devices/trusted-browsers.js";
import { sendNoticeOncePerCooldown } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort, isInfrastructureFailure } from "../errors.js";
import { type CountingHit, giveBackOnFailure, type ThrottleAttempt } from "../limits/throttle.js";
import type { Call, RequestContext } from "../model.js";
import { normalizePassword } from "../passwords/password-policy.js";
import type { CooldownKeys } from "../ports/joint-stores.js";
import type { UserRecord } from "../ports/user-store.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { requirePasswordChangeAtLogin } from "../sessions/password-change.js";
import { assertSsoNotRequired } from "../sso/required.js";
import { describeDevice } from "../support/user-agent.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";
import { loginInput, parseInput } from "../validation.js";

/**
 * The outcome of a password step: signed in, or a second factor is required (then there is no
 * access or refresh token anywhere, only the 2FA token).
 */
export type LoginResult = SignedIn | ({ twoFactorRequired: true } & TwoFactorChallenge);

/**
 * Email + password. Unknown addresses and accounts without a password run a dummy verify with
 * the current parameters and fail exactly like a wrong password (`INVALID_CREDENTIALS`).
 */
export async function login(ctx: AuthContext, call: Call, input: unknown): Promise<LoginResult> {
  const { request = {} } = call;
  const { email, password, session, rememberMe } = parseInput(loginInput, input);
  const candidate = normalizePassword(password);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  // Both limits count this attempt before the password is checked (docs/limits.md; `countLogin`).
  const counted = await countLogin(ctx, email, call);
  const [fromIp, budget] = counted.attempts;
  const outcome = await giveBackOnFailure([fromIp, budget], async () => {
    const user =
      counted.user !== undefined
        ? counted.user
        : await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    if (user === null || user.passwordHash === null) {
      await ctx.hasher.verify(await ctx.dummyHash(), candidate);
      return { user, ok: false } as const;
    }
    return { user, ok: await ctx.hasher.verify(user.passwordHash, candidate) } as const;
  });
  const { user } = outcome;

  if (user === null || user.passwordHash === null) {
    if (user !== null) {
      sendNoticeOncePerCooldown(ctx, {
        kind: "identity-provider-information",
        to: user.email,
        locale,
        values: {
          name: user.name,
          providers: user.identityProviders.join(", ") || "-",
          link: ctx.emails.link("forgotPassword"),
        },
      });
    }
    ctx.events.emit("login.failed", {
      ...request,
      userId: user?.id ?? null,
      reason: user ? "no_password" : "unknown_email",
    });
    throw new AuthError("INVALID_CREDENTIALS");
  }
  if (!outcome.ok) {
    ctx.events.emit("login.failed", { ...request, userId: user.id, reason: "wrong_password" });
    throw new AuthError("INVALID_CREDENTIALS");
  }
  // The address's budget is cleared by the session's write where the stores can; else now.
  const clearWithSession = budgetClearedWithSession(ctx, budget, user);
  await Promise.all([clearWithSession ? undefined : budget.succeeded(), fromIp.succeeded()]);
  const checked = { passwordHash: user.passwordHash, candidate };
  const signingIn = afterRightPassword(ctx, user, checked, {
    request,
    session,
    rememberMe,
    locale,
    clearWithSession,
  });
  if (!clearWithSession) return signingIn;
  // No session came although the password was right: a refusal only the right password learns (a
  // locked account, SSO required) or a failed session write (an outage of the sessions' table).
  // The budget left for that write is cleared by its own call, so retries never lock the address.
  return signingIn.catch(async (error: unknown) => {
    await budget.succeeded().catch(() => undefined);
    throw error;
  });
}

/**
 * The right password's way to a session: what only it learns (a locked account, SSO required:
 * refused), the password accepted, a required password change, a second factor unless the
 * browser is trusted, then the session (which clears the budget too when `clearWithSession`).
 */
async function afterRightPassword(
  ctx: AuthContext,
  user: UserRecord,
  { passwordHash, candidate }: { passwordHash: string; candidate: string },
  {
    request,
    session,
    rememberMe,
    locale,
    clearWithSession,
  }: {
    request: RequestContext;
    session: Parameters<typeof describeDevice>[0];
    rememberMe: boolean | undefined;
    locale: string;
    clearWithSession: CooldownKeys | undefined;
  },
): Promise<LoginResult> {
  assertNotLocked(user);
  await assertSsoNotRequired(ctx, user, request);
  const { verifiedPasswordHash, passwordBreached } = await acceptPassword(ctx, user, passwordHash, {
    candidate,
    request,
  });
  if (user.passwordChangeRequired === true)
    await requirePasswordChangeAtLogin(ctx, user, { verifiedPasswordHash }, request);
  const trusted =
    user.twoFactor.methods.length > 0 && (await isTrustedBrowser(ctx, user, request.deviceToken));
  if (user.twoFactor.methods.length > 0 && !trusted) {
    const started = { kind: "login" as const, rememberMe, verifiedPasswordHash, passwordBreached };
    return secondFactorRequired(ctx, user, started, { session, request, locale });
  }
  // The session is checked against the hash verified here: a reset that lands meanwhile ends it.
  return finishLogin(ctx, user, session, request, {
    verifiedPasswordHash,
    rememberMe,
    passwordBreached,
    ...(trusted ? { reason: "trusted_browser" } : {}),
    ...(clearWithSession ? { clearThrottle: clearWithSession } : {}),
  });
}

/** The right password of an account with a second factor (not trusted here): its challenge. */
async function secondFactorRequired(
  ctx: AuthContext,
  user: UserRecord,
  started: Omit<Parameters<typeof startChallenge>[2], "browser" | "os">,
  {
    session,
    request,
    locale,
  }: { session: Parameters<typeof describeDevice>[0]; request: RequestContext; locale: string },
): Promise<LoginResult> {
  const device = describeDevice(session, request.userAgent);
  const challenge = await startChallenge(ctx, user, { ...started, ...device }, locale);
  ctx.logger.info(
    { event: "login.second_factor", userId: user.id, ip: request.ip ?? null },
    "password ok, second factor required",
  );
  return { twoFactorRequired: true, ...challenge };
}

/**
 * The keys of the address's budget that the session's write clears (one statement fewer per
 * sign-in), or undefined when it is cleared by its own call: the right password then goes
 * straight to a session (no second factor, no password change first), the host's `stores.joint`
 * writes the session with the sign-in (`allowAccessTokenWithSessionAndRecordSignIn`) and says its
 * clearing works on the very cooldown store the budget counts in (`joint.cooldowns`).
 */
function budgetClearedWithSession(
  ctx: AuthContext,
  budget: ThrottleAttempt,
  user: UserRecord,
): CooldownKeys | undefined {
  const { clearing } = budget;
  const { joint } = ctx;
  if (clearing === undefined || joint?.allowAccessTokenWithSessionAndRecordSignIn === undefined)
    return undefined;
  if (joint.cooldowns !== clearing.store) return undefined;
  if (user.twoFactor.methods.length > 0 || user.passwordChangeRequired === true) return undefined;
  return clearing.keys;
}

/** The attempts a login counted (per IP, then the address's or the known browser's budget), and the user when already looked up. */
interface CountedLogin {
  attempts: [ThrottleAttempt, ThrottleAttempt];
  /**
   * Undefined when the lookup is still to come (no device token: the address's budget, unless
   * its hit read the account too: `hitReadingUser`).
   */
  user?: UserRecord | null | undefined;
}

/**
 * Counts the attempt per IP and per address. When the counters' store fails, the users store is
 * asked too: if it fails as well (one database holds both, and it is down), the answer is
 * `DATABASE_FAILURE`, the store a login needs, rather than the cooldown store's code.
 */
async function countAttempt(ctx: AuthContext, email: string, request: RequestContext): Promise<CountedLogin> {
  let fromIp: ThrottleAttempt | undefined;
  try {
    fromIp = await ctx.limits.ip("failedLogins", request);
    const reading = hitReadingUser(ctx, email);
    if (reading === undefined) return { attempts: [fromIp, await ctx.limits.password(email, request)] };
    const budget = await ctx.limits.password(email, request, reading.hit);
    return { attempts: [fromIp, budget], user: reading.found.user };
  } catch (error) {
    if (!isInfrastructureFailure(error)) throw error;
    await fromIp?.abandoned();
    await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    throw error;
  }
}

/**
 * The address's hit that also reads its account in the same step, where the host's
 * `stores.joint` can (`hitAndFindUserByEmail`) and says it counts in the very cooldown store the
 * limits count in (`joint.cooldowns`): one round trip fewer per sign-in. `found.user` is set once
 * the hit ran (undefined before: the caller then reads the account itself).
 */
function hitReadingUser(ctx: AuthContext, email: string) {
  const { joint } = ctx;
  const hitAndFind = joint?.hitAndFindUserByEmail;
  if (hitAndFind === undefined || joint?.cooldowns !== ctx.cooldowns) return undefined;
  const found: { user?: UserRecord | null } = {};
  const hit: CountingHit = async (key, windowMs) => {
    const { user, count, remainingMs } = await hitAndFind.call(joint, key, windowMs, email);
    found.user = user;
    return { count, remainingMs };
  };
  return { hit, found };
}

/**
 * Counts a login attempt: an attempt that a store or the hasher kept from being checked is given
 * back later (an outage never locks anyone out). From a browser with a device token, the account
 * is looked up first to choose the budget: its own when the browser knows the account, the
 * address's otherwise. Then, past `captcha.loginAfterFailures` failures, the CAPTCHA is checked.
 */
async function countLogin(
  ctx: AuthContext,
  email: string,
  { request = {}, captchaToken }: Call,
): Promise<CountedLogin> {
  const device = ctx.devices.read(request.deviceToken);
  const counted =
    device === null
      ? await countAttempt(ctx, email, request)
      : await countFromDevice(ctx, email, device, request);
  await captchaAfterFailures(ctx, captchaToken, request, counted.attempts);
  return counted;
}

/**
 * Past `captcha.loginAfterFailures` failures of the address (or of the known browser's budget) or
 * of the IP, as the login throttle counted them, the CAPTCHA token is checked before the password;
 * a missing or refused one gives both attempts back, so it costs the address nothing.
 */
async function captchaAfterFailures(
  ctx: AuthContext,
  token: string | undefined,
  request: RequestContext,
  attempts: readonly ThrottleAttempt[],
): Promise<void> {
  const after = ctx.captcha?.loginAfterFailures;
  if (ctx.captcha === undefined || after === undefined) return;
  const failures = Math.max(...attempts.map((attempt) => (attempt.count ?? 1) - 1));
  if (failures < after) return;
  try {
    await ctx.captcha.check(token, request);
  } catch (error) {
    await Promise.all(attempts.map((attempt) => attempt.abandoned()));
    throw error;
  }
}

/** User stores already warned about not having `replacePasswordHash`, so the warning is logged once. */
const cannotRehash = new WeakSet<AuthContext["users"]>();

/**
 * From a browser with a valid device token: counts per IP, looks the account up, then counts in
 * the budget of the account and this browser when the token names the account, else in the
 * address's (an unknown address, or another account, takes the same steps as any address the
 * browser does not know). A failure of the lookup or the count gives the IP's attempt back; a
 * failing counters' store is reported as `countAttempt` does.
 */
async function countFromDevice(
  ctx: AuthContext,
  email: string,
  device: Device,
  request: RequestContext,
): Promise<CountedLogin> {
  let fromIp: ThrottleAttempt;
  try {
    fromIp = await ctx.limits.ip("failedLogins", request);
  } catch (error) {
    // As in `countAttempt`: with both stores down, the answer names the users store.
    if (isInfrastructureFailure(error))
      await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    throw error;
  }
  return giveBackOnFailure([fromIp], async () => {
    const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    const budget =
      user !== null && ctx.devices.knows(device, user.id)
        ? await ctx.limits.knownDevicePassword(user.id, device.id, user.passwordHash, {
            ...request,
            userId: user.id,
          })
        : await ctx.limits.password(email, request);
    return { attempts: [fromIp, budget], user };
  });
}

/**
 * Replaces a hash made with outdated parameters, as a compare-and-set on the hash just verified
 * (`UserStore.replacePasswordHash`): a reset that landed since keeps its password. A failure here
 * never fails the login. Returns the hash stored now: the new one, or `passwordHash` when there
 * was nothing to do, the store has no compare-and-set, or the hash changed meanwhile (the session
 * check in `finishLogin` then ends the sign-in) or the update failed.
 */
async function rehashIfOutdated(
  ctx: AuthContext,
  user: UserRecord,
  passwordHash: string,
  password: string,
): Promise<string> {
  if (!ctx.hasher.needsRehash(passwordHash)) return passwordHash;
  const { users } = ctx;
  if (!users.replacePasswordHash) {
    if (!cannotRehash.has(users)) {
      cannotRehash.add(users);
      ctx.logger.warn(
        { event: "users.rehash_unsupported" },
        "stores.users has no replacePasswordHash: hashes made with outdated parameters are kept (they still verify)",
      );
    }
    return passwordHash;
  }
  try {
    const rehashed = await ctx.hasher.hash(password);
    const replaced = await users.replacePasswordHash(user.id, passwordHash, rehashed);
    return replaced ? rehashed : passwordHash;
  } catch (error) {
    ctx.logger.warn(
      { event: "password.rehash_failed", userId: user.id, err: String(error) },
      "could not rehash password",
    );
    return passwordHash;
  }
}

/**
 * After the right password: the rehash to current parameters and the breach check (never
 * refused at login, never throws), side by side; a found password is logged.
 */
async function acceptPassword(
  ctx: AuthContext,
  user: UserRecord,
  passwordHash: string,
  { candidate, request }: { candidate: string; request: RequestContext },
): Promise<{ verifiedPasswordHash: string; passwordBreached: boolean }> {
  const breachCheck = ctx.breachedPasswords?.check(candidate);
  const verifiedPasswordHash = await rehashIfOutdated(ctx, user, passwordHash, candidate);
  const passwordBreached = (await breachCheck) === "found";
  if (passwordBreached) {
    ctx.logger.info(
      { event: "login.password_breached", userId: user.id, ip: request.ip ?? null },
      "signed in with a password found in the breach corpus",
    );
  }
  return { verifiedPasswordHash, passwordBreached };
}
