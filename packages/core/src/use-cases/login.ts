import type { AuthContext } from "../context.js";
import { sendNoticeOncePerCooldown } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { RequestContext } from "../model.js";
import { normalizePassword } from "../password-policy.js";
import type { UserRecord } from "../ports/user-store.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";
import { describeDevice } from "../user-agent.js";
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
export async function login(
  ctx: AuthContext,
  input: unknown,
  request: RequestContext = {},
): Promise<LoginResult> {
  const { email, password, session } = parseInput(loginInput, input);
  const candidate = normalizePassword(password);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  // Both limits count this attempt before anything is checked (docs/limits.md).
  const fromIp = await ctx.limits.ip("failedLogins", request);
  const forAddress = await ctx.limits.password(email, request);
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));

  if (user === null || user.passwordHash === null) {
    await ctx.hasher.verify(await ctx.dummyHash(), candidate);
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
  if (!(await ctx.hasher.verify(user.passwordHash, candidate))) {
    ctx.events.emit("login.failed", { ...request, userId: user.id, reason: "wrong_password" });
    throw new AuthError("INVALID_CREDENTIALS");
  }
  await Promise.all([forAddress.succeeded(), fromIp.succeeded()]);
  await rehashIfOutdated(ctx, user, candidate);

  if (user.twoFactor.methods.length > 0) {
    const device = describeDevice(session, request.userAgent);
    const challenge = await startChallenge(ctx, user, { kind: "login", ...device }, locale);
    ctx.logger.info(
      { event: "login.second_factor", userId: user.id, ip: request.ip ?? null },
      "password ok, second factor required",
    );
    return { twoFactorRequired: true, ...challenge };
  }
  return finishLogin(ctx, user, session, request);
}

/** Replaces a hash made with outdated parameters; a failure here never fails the login. */
async function rehashIfOutdated(ctx: AuthContext, user: UserRecord, password: string): Promise<void> {
  if (user.passwordHash === null || !ctx.hasher.needsRehash(user.passwordHash)) return;
  try {
    await ctx.users.update(user.id, { passwordHash: await ctx.hasher.hash(password) });
  } catch (error) {
    ctx.logger.warn(
      { event: "password.rehash_failed", userId: user.id, err: String(error) },
      "could not rehash password",
    );
  }
}
