import { requireCaptcha } from "../captcha/captcha.js";
import type { AuthContext } from "../context.js";
import { sendNoticeOncePerCooldown } from "../emails/send-with-cooldown.js";
import { sendVerificationEmail } from "../emails/verification-email.js";
import { ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import {
  checkPasswordPolicy,
  type PasswordPolicy,
  refuseBreachedPassword,
} from "../passwords/password-policy.js";
import { createUserRecord } from "../sessions/new-user.js";
import { parseInput, registerInput } from "../validation.js";

/**
 * Creates a password account. Answers `{ success: true }` whether or not the address is taken,
 * and hashes the password either way, so neither the body nor the timing tells them apart. The
 * browser's device token comes back naming the new account (a registration makes the browser
 * known), or naming no one for a taken address, alike in shape.
 */
export async function register(
  ctx: AuthContext,
  { request = {}, captchaToken }: Call,
  input: unknown,
): Promise<{ success: true; deviceToken: string }> {
  const { email, normalizedPassword, name } = parseRegistration(input, ctx.options.password);
  await requireCaptcha(ctx.captcha, "register", captchaToken, request);
  await ctx.limits.ip("registrations", request);
  // After the IP's limit: a flood of registrations sends no more range requests than it may register.
  await refuseBreachedPassword(ctx, normalizedPassword);
  const passwordHash = await ctx.hasher.hash(normalizedPassword);
  const created = await createUserRecord(ctx, {
    email,
    emailVerified: false,
    name: name ?? null,
    passwordHash,
  });
  if (created) {
    ctx.events.emit("user.created", { ...request, userId: created.id, reason: "register" });
    if (ctx.emails.enabled) {
      const locale = request.locale ?? ctx.translator.defaultLocale;
      ctx.background.run("email.failed", () => sendVerificationEmail(ctx, created, locale), {
        kind: "email-verification",
        userId: created.id,
      });
    }
  } else {
    ctx.logger.info(
      { event: "user.register_existing", ip: request.ip ?? null },
      "registration for an existing address",
    );
    sendNoticeOncePerCooldown(ctx, {
      kind: "registration-attempt",
      to: email,
      locale: request.locale ?? ctx.translator.defaultLocale,
      values: { link: ctx.emails.link("signIn") },
    });
  }
  const device = ctx.devices.read(request.deviceToken);
  const deviceToken = created ? ctx.devices.remember(device, created.id) : ctx.devices.rememberNobody(device);
  return { success: true, deviceToken };
}

/**
 * The registration's fields, every invalid one reported at once: when another field fails, a
 * password that breaks the policy is listed in the same `VALIDATION_FAILED` (alone, it is
 * `PASSWORD_POLICY_VIOLATION`).
 */
function parseRegistration(input: unknown, policy: PasswordPolicy) {
  let parsed: ReturnType<typeof parseInput<typeof registerInput>>;
  try {
    parsed = parseInput(registerInput, input);
  } catch (error) {
    const password = (input as { password?: unknown } | null | undefined)?.password;
    if (!(error instanceof ValidationError) || typeof password !== "string") throw error;
    if (error.issues.some((issue) => issue.path === "password")) throw error;
    try {
      checkPasswordPolicy(password, policy);
    } catch (policyError) {
      if (policyError instanceof ValidationError)
        throw new ValidationError([...error.issues, ...policyError.issues]);
      throw policyError;
    }
    throw error;
  }
  return { ...parsed, normalizedPassword: checkPasswordPolicy(parsed.password, policy) };
}
