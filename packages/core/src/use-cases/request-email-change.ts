import { changeEmailOf } from "../account/email-change.js";
import type { AuthContext } from "../context.js";
import { requireEmailEnabled, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { guardPort, ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import {
  EMAIL_CHANGE_PURPOSE,
  EMAIL_CHANGE_TOKEN_TTL_MS,
  EXPIRED_TOKEN_GRACE_MS,
} from "../tokens/purposes.js";
import { issueSingleUseToken } from "../tokens/single-use-token.js";
import { requireStepUp } from "../two-factor/settings.js";
import { emailChangeInput, fieldIssue, parseInput } from "../validation.js";

/**
 * The signed-in user (with a step-up) asks to move the account to `newEmail` (docs/concepts.md, "Account self-service"). The
 * answer is the same `{ cooldown }` whether or not the address is taken: a free address gets a
 * confirmation link (single use, 24 h, bound to the user, the current address and the new one;
 * a newer request invalidates older links), a taken one the registration-attempt email. The
 * cooldown of §4 runs per new address (kind `email-change`), acquired before anything is looked
 * up. Nothing changes until the link is confirmed. The current address is `email_unchanged`.
 */
export async function requestEmailChange(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ cooldown: number }> {
  const user = await requireStepUp(ctx, call);
  requireEmailEnabled(ctx);
  const { request = {} } = call;
  const { newEmail } = parseInput(emailChangeInput, input);
  if (newEmail === user.email) throw new ValidationError([fieldIssue("newEmail", "email_unchanged")]);
  changeEmailOf(ctx);
  const locale = request.locale ?? ctx.translator.defaultLocale;
  const hours = Math.round(EMAIL_CHANGE_TOKEN_TTL_MS / 3_600_000);
  const result = await sendWithCooldown(ctx, "email-change", newEmail, async () => {
    const owner = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(newEmail));
    if (owner) {
      return {
        kind: "registration-attempt",
        to: newEmail,
        locale,
        values: { link: ctx.emails.link("signIn") },
      };
    }
    const token = await issueSingleUseToken(ctx, {
      purpose: EMAIL_CHANGE_PURPOSE,
      userId: user.id,
      ttlMs: EMAIL_CHANGE_TOKEN_TTL_MS,
      data: { email: user.email, newEmail },
      graceMs: EXPIRED_TOKEN_GRACE_MS,
      replaceOthers: true,
      failureCode: "DATABASE_FAILURE",
    });
    return {
      kind: "email-change",
      to: newEmail,
      locale,
      values: { name: user.name, link: ctx.emails.link("confirmEmailChange", token), hours },
      undo: () => ctx.singleUseTokens.deleteUserTokens(user.id, EMAIL_CHANGE_PURPOSE),
    };
  });
  ctx.events.emit("email_change.requested", {
    ...request,
    userId: user.id,
    sessionId: call.principal?.sessionId ?? null,
  });
  return result;
}
