import { type CooldownSendDeps, sendWithCooldown } from "../emails/send-with-cooldown.js";
import { guardPort } from "../errors.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import type { UserRecord } from "../ports/user-store.js";
import { EMAIL_CODE_PURPOSE } from "../tokens/purposes.js";
import { hashToken } from "../tokens/random.js";
import {
  type HeldToken,
  holdTokenHash,
  saveEmailedCode,
  type TokenDeps,
} from "../tokens/single-use-token.js";

/** What emailed 2FA codes need. */
export type EmailCodeDeps = Omit<CooldownSendDeps, "background" | "options"> & {
  singleUseTokens: SingleUseTokenStore;
  clock: { now(): number };
  options: { email: { cooldownSeconds: number }; twoFactor: { emailCodeTtlSeconds: number } };
};

const emailCodeHash = (userId: string, code: string) => hashToken(`${userId}:${code}`);

/**
 * Mails a fresh 6-digit code under the 2FA-code cooldown; the code replaces older ones. `setup`:
 * the code turns codes by email on, and the email says so instead of "finish signing in".
 */
export function sendEmailCode(
  deps: EmailCodeDeps,
  user: UserRecord,
  locale: string,
  purpose: "sign-in" | "setup" = "sign-in",
): Promise<{ cooldown: number }> {
  return sendWithCooldown(deps, "two-factor-code", user.email, async () => {
    const ttlMs = deps.options.twoFactor.emailCodeTtlSeconds * 1000;
    const hash = (code: string) => emailCodeHash(user.id, code);
    const token = { purpose: EMAIL_CODE_PURPOSE, userId: user.id, hash, ttlMs };
    const code = await saveEmailedCode(deps, token, ttlMs, { replaceOthers: true });
    return {
      kind: "two-factor-code",
      to: user.email,
      locale,
      values: {
        name: user.name,
        code,
        minutes: Math.round(ttlMs / 60_000),
        variant: purpose === "setup" ? "setup" : undefined,
      },
      undo: () => deps.singleUseTokens.deleteUserTokens(user.id, EMAIL_CODE_PURPOSE),
    };
  });
}

/** An emailed code works once, until it expires. */
export async function emailCodeMatches(
  deps: { singleUseTokens: SingleUseTokenStore; clock: { now(): number } },
  userId: string,
  code: string,
): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const record = await guardPort("DATABASE_FAILURE", () =>
    deps.singleUseTokens.consumeToken(EMAIL_CODE_PURPOSE, emailCodeHash(userId, code)),
  );
  return record !== null && record.expiresAt > deps.clock.now();
}

/**
 * Holds an emailed code for work it authorizes (turning email 2FA on), so that a failed step can
 * give it back: of concurrent calls with one code, one holds it; it is spent by `consume` once the
 * work is done, usable again after `release` (or when the claim's lease ends). Null when the code
 * is malformed, unknown, used, held or expired (an expired code is released, it stays useless).
 */
export async function holdEmailCode(
  deps: TokenDeps,
  userId: string,
  code: string,
): Promise<HeldToken | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const held = await holdTokenHash(deps, EMAIL_CODE_PURPOSE, emailCodeHash(userId, code));
  if (held?.expired) {
    await held.release();
    return null;
  }
  return held;
}
