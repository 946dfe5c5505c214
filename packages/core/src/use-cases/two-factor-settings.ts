import { z } from "zod";
import type { AuthContext, Principal, RequestContext, User } from "../context.js";
import { toUser } from "../context.js";
import { AuthError, guardPort, isInfrastructureFailure } from "../errors.js";
import type { TwoFactorMethod, TwoFactorSettings, UserRecord } from "../ports/user-store.js";
import { hashToken, randomToken } from "../tokens/random.js";
import { restoreToken, spendToken } from "../tokens/single-use-token.js";
import {
  checkCounted,
  checkSecondFactor,
  newRecoveryCodes,
  parseCodeInput,
  recoveryCodeHash,
  sendEmailCode,
  takeChallenge,
  totpMatches,
} from "../two-factor/second-factor.js";
import { newTotpSecret, totpUri } from "../two-factor/totp.js";
import { opaqueToken, parseInput } from "../validation.js";
import { cooldownRemaining } from "./email-flow.js";

const SETUP_PURPOSE = "totp-setup";
const SETUP_TTL_MS = 10 * 60 * 1000;

async function currentUser(ctx: AuthContext, principal: Principal): Promise<UserRecord> {
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(principal.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return user;
}

/**
 * Turning a 2FA method on needs a verified address (`EMAIL_NOT_VERIFIED`): otherwise whoever
 * registered someone else's address first could guard that account with their own second
 * factor, which the owner's password reset would not remove (CONTRACT §8, SECURITY D6).
 */
function requireVerifiedAddress(user: UserRecord): void {
  if (!user.emailVerified) throw new AuthError("EMAIL_NOT_VERIFIED");
}

/** Every change to 2FA needs a live step-up token of this user and session (`STEP_UP_REQUIRED`). */
async function requireStepUp(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
): Promise<UserRecord> {
  await ctx.stepUpTokens.verify(stepUpToken, principal.userId, principal.sessionId);
  return currentUser(ctx, principal);
}

/** Saves new 2FA settings, keeps `preferredMethod` valid, and mails the security alert. */
async function saveTwoFactor(
  ctx: AuthContext,
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

/**
 * A new TOTP secret (160 bits, base32), its otpauth URI and 10 recovery codes, plus a setup token
 * that `confirmTotpSetup` needs. Nothing changes on the account until then.
 */
export async function getTotpSetup(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
): Promise<{ secret: string; otpauthUri: string; recoveryCodes: string[]; setupToken: string }> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  requireVerifiedAddress(user);
  const secret = newTotpSecret();
  const recoveryCodes = newRecoveryCodes();
  const setupToken = randomToken(32);
  await guardPort("DATABASE_FAILURE", async () =>
    ctx.sessions.saveToken(
      {
        purpose: SETUP_PURPOSE,
        tokenHash: hashToken(setupToken),
        userId: user.id,
        expiresAt: ctx.clock.now() + SETUP_TTL_MS,
        data: {
          secret: await ctx.secretBox.seal(secret),
          recoveryCodeHashes: JSON.stringify(recoveryCodes.map((code) => recoveryCodeHash(ctx, code))),
        },
      },
      SETUP_TTL_MS,
      { replaceOthers: true },
    ),
  );
  const issuer = ctx.options.twoFactor.issuer ?? ctx.options.email.brand.name;
  return { secret, otpauthUri: totpUri(secret, issuer, user.email), recoveryCodes, setupToken };
}

const confirmInput = z.object({ setupToken: opaqueToken, code: z.string().max(64) });

/** Turns TOTP on with a code from the new secret; it becomes preferred, and every other session ends. */
export async function confirmTotpSetup(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<User> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  const { setupToken, code } = parseInput(confirmInput, input);
  requireVerifiedAddress(user);
  const record = await guardPort("DATABASE_FAILURE", () =>
    ctx.sessions.consumeToken(SETUP_PURPOSE, hashToken(setupToken)),
  );
  if (!record || record.userId !== user.id || record.expiresAt <= ctx.clock.now())
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  return spendToken(ctx, record, async () => {
    const sealed = String(record.data?.secret ?? "");
    try {
      await checkCounted(ctx, user.id, request, () =>
        totpMatches(ctx, user.id, sealed, code.replace(/\s/g, "")),
      );
    } catch (error) {
      // A wrong code keeps the setup usable for another try (a throttle answer too).
      if (error instanceof AuthError && !isInfrastructureFailure(error)) await restoreToken(ctx, record);
      throw error;
    }
    const methods: TwoFactorMethod[] = [...user.twoFactor.methods.filter((m) => m !== "totp"), "totp"];
    const result = await saveTwoFactor(
      ctx,
      user,
      {
        ...user.twoFactor,
        methods,
        preferredMethod: "totp",
        totpSecretEncrypted: sealed,
        recoveryCodeHashes: JSON.parse(String(record.data?.recoveryCodeHashes ?? "[]")) as string[],
      },
      { change: "added", method: "totp" },
      request,
    );
    await guardPort("DATABASE_FAILURE", () => ctx.sessions.deleteUserSessions(user.id, principal.sessionId));
    return result;
  });
}

/** Turns a 2FA method off (needs step-up). */
export async function disableTwoFactorMethod(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  method: TwoFactorMethod,
  request: RequestContext = {},
): Promise<User> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  if (!user.twoFactor.methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  return saveTwoFactor(
    ctx,
    user,
    { ...user.twoFactor, methods: user.twoFactor.methods.filter((m) => m !== method) },
    { change: "removed", method },
    request,
  );
}

/**
 * Mails a 6-digit code (own cooldown): for turning email 2FA on, for a step-up, or — with the 2FA
 * token of a login instead of an access token — to resend the login code.
 */
export async function sendTwoFactorEmailCode(
  ctx: AuthContext,
  who: { principal: Principal } | { twoFactorToken: string | undefined },
  request: RequestContext = {},
): Promise<{ cooldown: number }> {
  if (!ctx.emails.enabled) throw new AuthError("EMAIL_DISABLED");
  let user: UserRecord;
  if ("principal" in who) {
    user = await currentUser(ctx, who.principal);
    if (!user.twoFactor.methods.includes("email")) requireVerifiedAddress(user);
  } else {
    const challenge = await takeChallenge(ctx, who.twoFactorToken, "any");
    await challenge.restore();
    user = challenge.user;
    if (!user.twoFactor.methods.includes("email")) throw new AuthError("TWO_FACTOR_DISABLED");
  }
  return sendEmailCode(ctx, user, request.locale ?? ctx.translator.defaultLocale);
}

export async function getTwoFactorEmailCooldown(
  ctx: AuthContext,
  principal: Principal,
): Promise<{ remaining: number }> {
  const user = await currentUser(ctx, principal);
  return cooldownRemaining(ctx, "two-factor-code", user.email);
}

/** Turns email 2FA on with a code from `sendTwoFactorEmailCode` (needs step-up). */
export async function enableEmailTwoFactor(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  input: unknown,
  request: RequestContext = {},
): Promise<User> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  const { code } = parseCodeInput(input);
  requireVerifiedAddress(user);
  const withEmail: UserRecord = {
    ...user,
    twoFactor: { ...user.twoFactor, methods: [...user.twoFactor.methods, "email"] },
  };
  await checkSecondFactor(ctx, withEmail, "email", code, request);
  if (user.twoFactor.methods.includes("email")) return toUser(user);
  return saveTwoFactor(ctx, user, withEmail.twoFactor, { change: "added", method: "email" }, request);
}

const preferredInput = z.object({ method: z.enum(["totp", "email"]) });

/** Chooses which enabled method login offers first (needs step-up). */
export async function setPreferredTwoFactorMethod(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  input: unknown,
): Promise<User> {
  const user = await requireStepUp(ctx, principal, stepUpToken);
  const { method } = parseInput(preferredInput, input);
  if (!user.twoFactor.methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  const updated = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(user.id, { twoFactor: { ...user.twoFactor, preferredMethod: method } }),
  );
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  return toUser(updated);
}
