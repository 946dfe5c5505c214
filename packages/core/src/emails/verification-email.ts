import type { UserRecord } from "../ports/user-store.js";
import { issueLinkToken } from "../tokens/link-token.js";
import { EMAIL_VERIFICATION_PURPOSE } from "../tokens/purposes.js";
import { hashToken } from "../tokens/random.js";
import type { TokenDeps } from "../tokens/single-use-token.js";
import { type CooldownSendDeps, sendWithCooldown } from "./send-with-cooldown.js";

export type VerificationEmailDeps = TokenDeps &
  Omit<CooldownSendDeps, "background" | "options"> & {
    options: { email: { cooldownSeconds: number }; emailVerificationTokenTtlSeconds: number };
  };

/**
 * Stores a fresh verification token bound to the user's exact address and mails its link, under
 * the verification cooldown (the token is removed again when the send fails).
 */
export function sendVerificationEmail(
  deps: VerificationEmailDeps,
  user: UserRecord,
  locale: string,
): Promise<{ cooldown: number }> {
  return sendWithCooldown(deps, "email-verification", user.email, async () => {
    const ttlMs = deps.options.emailVerificationTokenTtlSeconds * 1000;
    const token = await issueLinkToken(deps, user, {
      purpose: EMAIL_VERIFICATION_PURPOSE,
      ttlMs,
      failureCode: "EMAIL_VERIFICATION_TOKEN_CREATION_FAILURE",
    });
    return {
      kind: "email-verification",
      to: user.email,
      locale,
      values: {
        name: user.name,
        link: deps.emails.link("verifyEmail", token),
        hours: Math.round(ttlMs / 3_600_000),
      },
      undo: () => deps.singleUseTokens.consumeToken(EMAIL_VERIFICATION_PURPOSE, hashToken(token)),
    };
  });
}
