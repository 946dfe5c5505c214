import type { AuthContext, RequestContext } from "../context.js";
import { sendNoticeOncePerCooldown } from "../emails/notices.js";
import { guardPort } from "../errors.js";
import { checkPasswordPolicy } from "../password-policy.js";
import { NO_TWO_FACTOR } from "../ports/user-store.js";
import { randomId } from "../tokens/random.js";
import { parseInput, registerInput } from "../validation.js";
import { sendVerificationEmail } from "./resend-verification.js";

/**
 * Creates a password account. Answers `{ success: true }` whether or not the address is taken,
 * and hashes the password either way, so neither the body nor the timing tells them apart.
 */
export async function register(
  ctx: AuthContext,
  input: unknown,
  request: RequestContext = {},
): Promise<{ success: true }> {
  const { email, password, name } = parseInput(registerInput, input);
  const normalizedPassword = checkPasswordPolicy(password, ctx.options.password);
  await ctx.limits.ip("registrations", request);
  const passwordHash = await ctx.hasher.hash(normalizedPassword);
  const created = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.create({
      id: randomId(),
      email,
      emailVerified: false,
      name: name ?? null,
      passwordHash,
      identityProviders: [],
      twoFactor: { ...NO_TWO_FACTOR, methods: [], recoveryCodeHashes: [] },
      createdAt: ctx.clock.now(),
    }),
  );
  if (created) {
    ctx.logger.info(
      { event: "user.registered", userId: created.id, ip: request.ip ?? null },
      "user registered",
    );
    if (ctx.emails.enabled) {
      sendVerificationEmail(ctx, created, request.locale ?? ctx.translator.defaultLocale).catch(
        (error: unknown) =>
          ctx.logger.error(
            {
              event: "email.failed",
              kind: "email-verification",
              userId: created.id,
              err: String((error as Error).cause ?? error),
            },
            "first verification email failed",
          ),
      );
    }
  } else {
    ctx.logger.info(
      { event: "user.register_existing", ip: request.ip ?? null },
      "registration for an existing address",
    );
    if (ctx.emails.enabled) {
      sendNoticeOncePerCooldown(
        ctx,
        "registration-attempt",
        email,
        request.locale ?? ctx.translator.defaultLocale,
        {
          link: ctx.emails.link("signIn"),
        },
      );
    }
  }
  return { success: true };
}
