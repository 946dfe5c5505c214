import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { giveBackOnFailure } from "../limits/throttle.js";
import type { Call, RequestContext } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { assertSsoNotRequired } from "../sso/required.js";
import { describeDevice } from "../support/user-agent.js";
import { holdEmailSignInCode, requireEmailSignIn } from "../tokens/email-sign-in.js";
import { useLinkToken } from "../tokens/link-token.js";
import { EMAIL_SIGN_IN_PURPOSE } from "../tokens/purposes.js";
import { offeredMethods, startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";
import { emailSignInInput, parseInput } from "../validation.js";

/** Signed in, or the 2FA step (as a password login answers: `LoginResult`). */
type LoginResult = SignedIn | ({ twoFactorRequired: true } & TwoFactorChallenge);
type SignInInput = ReturnType<typeof emailSignInInput.parse>;

/**
 * Sign-in by email, second step: the emailed link's `token`, or the address and its emailed
 * `code`. Link and code are single use (held while checked: of concurrent uses, one goes on),
 * bound to the user and the address they were mailed to, and die together with the sign-in.
 * A code is counted before it is checked, per normalized address and per IP, known and unknown
 * addresses alike (`EMAIL_SIGN_IN_THROTTLED` past `emailSignIn.maxWrongCodes`); an unknown,
 * used, expired or replaced link or code is `EMAIL_SIGN_IN_INVALID`, whatever the address. The
 * sign-in marks a never-verified address verified (the mailbox was proven, as by the
 * verification link; docs/concepts.md). An account with 2FA goes on to the 2FA step without the
 * email method (an account whose only method is email cannot finish: `TWO_FACTOR_DISABLED`).
 */
export async function signInWithEmail(
  ctx: AuthContext,
  { request = {} }: Call,
  input: unknown,
): Promise<LoginResult> {
  requireEmailSignIn(ctx);
  const parsed = parseInput(emailSignInInput, input ?? {});
  if (parsed.token !== undefined) {
    return useLinkToken(ctx, {
      purpose: EMAIL_SIGN_IN_PURPOSE,
      token: parsed.token,
      request,
      invalid: "EMAIL_SIGN_IN_INVALID",
      expired: "EMAIL_SIGN_IN_INVALID",
      whenUnknown: async () => {
        ctx.events.emit("login.failed", { ...request, reason: "email_link" });
      },
      async use(user, record, consume) {
        if (record.data?.kind !== "link") throw new AuthError("EMAIL_SIGN_IN_INVALID");
        // The link and the code of its email die together, before anything is signed in.
        await consume(() => ctx.singleUseTokens.deleteUserTokens(user.id, EMAIL_SIGN_IN_PURPOSE));
        return signedInByEmail(ctx, user, parsed, request);
      },
    });
  }
  const user = await takeCode(ctx, parsed.email ?? "", parsed.code ?? "", request);
  return signedInByEmail(ctx, user, parsed, request);
}

/**
 * Checks an emailed code under the address's and the IP's budgets (both counted first) and
 * spends the code's email (its link too). Answers alike for an address without an account.
 */
async function takeCode(
  ctx: AuthContext,
  email: string,
  typed: string,
  request: RequestContext,
): Promise<UserRecord> {
  const code = typed.replace(/[\s-]/g, "");
  const fromIp = await ctx.limits.ip("invalidTokens", request);
  const forAddress = await giveBackOnFailure([fromIp], () => ctx.limits.emailSignInCode(email, request));
  const { user, held } = await giveBackOnFailure([forAddress, fromIp], async () => {
    const found = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
    return { user: found, held: await holdEmailSignInCode(ctx, found?.id ?? null, email, code) };
  });
  const valid = user !== null && held !== null && !held.expired && held.record.data?.email === user.email;
  if (!valid || held.record.data?.kind !== "code") {
    // An expired code, or one mailed to an address the account no longer has, is spent.
    if (held) await held.consume().catch(() => held.release());
    ctx.events.emit("login.failed", {
      ...request,
      userId: user?.id ?? null,
      reason: user ? "email_code" : "unknown_email",
    });
    throw new AuthError("EMAIL_SIGN_IN_INVALID");
  }
  await Promise.all([forAddress.succeeded(), fromIp.succeeded()]);
  try {
    await guardPort("DATABASE_FAILURE", () =>
      ctx.singleUseTokens.deleteUserTokens(user.id, EMAIL_SIGN_IN_PURPOSE),
    );
  } catch (error) {
    await held.release();
    throw error;
  }
  return user;
}

/**
 * The end of a sign-in by email, once its link or code is spent: the address marked verified,
 * then the 2FA step (without the email method) or a session (`login.succeeded` with reason `email`).
 */
async function signedInByEmail(
  ctx: AuthContext,
  found: UserRecord,
  { session, rememberMe }: SignInInput,
  request: RequestContext,
): Promise<LoginResult> {
  let user = found;
  await assertSsoNotRequired(ctx, user, request);
  if (!user.emailVerified) {
    const updated = await guardPort("DATABASE_FAILURE", () =>
      ctx.users.update(user.id, { emailVerified: true }),
    );
    if (!updated) throw new AuthError("EMAIL_SIGN_IN_INVALID");
    user = updated;
    ctx.events.emit("email.verified", { ...request, userId: user.id, reason: "email_sign_in" });
  }
  if (user.twoFactor.methods.length > 0) {
    if (offeredMethods(user, "email").twoFactor.methods.length === 0) {
      ctx.events.emit("login.failed", { ...request, userId: user.id, reason: "email_two_factor_only" });
      throw new AuthError("TWO_FACTOR_DISABLED");
    }
    const device = describeDevice(session, request.userAgent);
    const locale = request.locale ?? ctx.translator.defaultLocale;
    const challenge = await startChallenge(
      ctx,
      user,
      { kind: "login", ...device, rememberMe, signIn: "email" },
      locale,
    );
    return { twoFactorRequired: true, ...challenge };
  }
  return finishLogin(ctx, user, session, request, { reason: "email", rememberMe });
}
