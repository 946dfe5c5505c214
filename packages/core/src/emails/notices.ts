import type { AuthContext } from "../context.js";
import type { EmailKind } from "../ports/mailer.js";
import type { EmailValues } from "./renderer.js";

/** The cooldown key of one kind of email to one normalized address. */
export function emailCooldownKey(kind: EmailKind, normalizedEmail: string): string {
  return `email:${kind}:${normalizedEmail}`;
}

/**
 * Sends a notice that an unauthenticated request triggers (registration attempt, identity
 * provider information) in the background, at most once per cooldown per address, so nobody can
 * use it to flood an inbox. Never throws; the caller's answer and timing do not depend on it.
 */
export function sendNoticeOncePerCooldown(
  ctx: AuthContext,
  kind: EmailKind,
  to: string,
  locale: string,
  values: Omit<EmailValues, "email">,
): void {
  if (!ctx.emails.enabled) return;
  const key = emailCooldownKey(kind, to);
  const run = async () => {
    const { acquired } = await ctx.cooldowns.acquire(key, ctx.options.email.cooldownSeconds * 1000);
    if (!acquired) return;
    try {
      await ctx.emails.send(kind, to, locale, values);
    } catch (error) {
      await ctx.cooldowns.release(key);
      throw error;
    }
  };
  run().catch((error: unknown) =>
    ctx.logger.error(
      { event: "email.failed", kind, err: String((error as Error).cause ?? error) },
      "notice email failed",
    ),
  );
}

/** Time of a sign-in as the recipient reads it, in their locale (UTC). */
export function formatEmailTime(timestampMs: number, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "long", timeZone: "UTC" }).format(
      timestampMs,
    );
  } catch {
    return new Date(timestampMs).toISOString();
  }
}
