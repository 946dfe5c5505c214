import type { AuthContext } from "../context.js";
import { emailCooldownKey } from "../emails/notices.js";
import type { EmailValues } from "../emails/renderer.js";
import { AuthError, CooldownError, guardPort } from "../errors.js";
import type { EmailKind } from "../ports/mailer.js";

/** Whole seconds, rounded up, as the contract's `cooldown` and `remaining` fields carry them. */
export const wholeSeconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * The cooldown discipline of every email a user asks for (CONTRACT.md §4): acquire the cooldown
 * for (kind, address) atomically first (`EMAIL_COOLDOWN_ACTIVE` with `remaining` when one runs),
 * then `prepare` (e.g. store a token) and send; if anything after the acquire fails, `undo` runs
 * and the cooldown is released, so an immediate retry works and sends exactly once.
 */
export async function sendWithCooldown(
  ctx: AuthContext,
  cooldownKind: EmailKind,
  address: string,
  prepare: () => Promise<{
    kind: EmailKind;
    to: string;
    locale: string;
    values: Omit<EmailValues, "email">;
    undo?: () => Promise<unknown>;
  }>,
): Promise<{ cooldown: number }> {
  const key = emailCooldownKey(cooldownKind, address);
  const ttlMs = ctx.options.email.cooldownSeconds * 1000;
  const { acquired, remainingMs } = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.acquire(key, ttlMs),
  );
  if (!acquired) throw new CooldownError("EMAIL_COOLDOWN_ACTIVE", wholeSeconds(remainingMs));
  let undo: (() => Promise<unknown>) | undefined;
  try {
    const email = await prepare();
    undo = email.undo;
    await ctx.emails.send(email.kind, email.to, email.locale, email.values);
  } catch (error) {
    await Promise.allSettled([undo?.(), ctx.cooldowns.release(key)]).then((results) => {
      for (const result of results) {
        if (result.status === "rejected") {
          ctx.logger.error(
            { event: "email.undo_failed", kind: cooldownKind, err: String(result.reason) },
            "could not undo after a failed send",
          );
        }
      }
    });
    throw error;
  }
  return { cooldown: wholeSeconds(ttlMs) };
}

/** `{ remaining }` of the cooldown for (kind, address); 0 when none runs. */
export async function cooldownRemaining(
  ctx: AuthContext,
  kind: EmailKind,
  address: string,
): Promise<{ remaining: number }> {
  const ms = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.remainingMs(emailCooldownKey(kind, address)),
  );
  return { remaining: wholeSeconds(ms) };
}

export function requireEmailEnabled(ctx: AuthContext): void {
  if (!ctx.emails.enabled) throw new AuthError("EMAIL_DISABLED");
}
