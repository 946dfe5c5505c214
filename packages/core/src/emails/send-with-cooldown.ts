import { AuthError, CooldownError, guardPort, portFailure, wholeSeconds } from "../errors.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { Logger } from "../ports/logger.js";
import type { EmailKind } from "../ports/mailer.js";
import type { BackgroundTasks } from "../support/background.js";
import type { EmailService } from "./email-service.js";
import type { EmailValues } from "./renderer.js";

/** What sending under a cooldown needs. */
export interface CooldownSendDeps {
  cooldowns: CooldownStore;
  emails: EmailService;
  logger: Logger;
  background: BackgroundTasks;
  options: { email: { cooldownSeconds: number } };
}

/** The cooldown key of one kind of email to one normalized address. */
export function emailCooldownKey(kind: EmailKind, normalizedEmail: string): string {
  return `email:${kind}:${normalizedEmail}`;
}

/** One email ready to send, and how to undo what preparing it stored. */
export interface PreparedEmail {
  kind: EmailKind;
  to: string;
  locale: string;
  values: Omit<EmailValues, "email">;
  undo?: () => Promise<unknown>;
}

/**
 * The cooldown discipline of every email (docs/http-api.md): acquire the cooldown for (kind,
 * address) atomically first (`EMAIL_COOLDOWN_ACTIVE` with `remaining` when one runs), then
 * `prepare` (e.g. store a token) and send; if anything after the acquire fails, `undo` runs and
 * the cooldown is released, so an immediate retry works and sends exactly once.
 */
export async function sendWithCooldown(
  deps: Omit<CooldownSendDeps, "background">,
  cooldownKind: EmailKind,
  address: string,
  prepare: () => Promise<PreparedEmail>,
): Promise<{ cooldown: number }> {
  const key = emailCooldownKey(cooldownKind, address);
  const ttlMs = deps.options.email.cooldownSeconds * 1000;
  let acquired: { acquired: boolean; remainingMs: number };
  try {
    // Not through `guardPort`: no closure and no async frame of its own on every refusal.
    acquired = await deps.cooldowns.acquire(key, ttlMs);
  } catch (error) {
    throw portFailure("EMAIL_COOLDOWN_CACHE_FAILURE", error);
  }
  if (!acquired.acquired)
    throw new CooldownError("EMAIL_COOLDOWN_ACTIVE", withinCooldown(acquired.remainingMs, ttlMs));
  let undo: (() => Promise<unknown>) | undefined;
  try {
    const email = await prepare();
    undo = email.undo;
    await deps.emails.send(email.kind, email.to, email.locale, email.values);
  } catch (error) {
    const results = await Promise.allSettled([undo?.(), deps.cooldowns.release(key)]);
    for (const result of results) {
      if (result.status === "rejected") {
        deps.logger.error(
          { event: "email.undo_failed", kind: cooldownKind, err: String(result.reason) },
          "could not undo after a failed send",
        );
      }
    }
    throw error;
  }
  return { cooldown: wholeSeconds(ttlMs) };
}

/**
 * A notice an unauthenticated request triggers (registration attempt, identity provider
 * information), sent in the background at most once per cooldown per address, so nobody can use
 * it to flood an inbox. Never throws; the caller's answer and timing do not depend on it.
 */
export function sendNoticeOncePerCooldown(deps: CooldownSendDeps, email: PreparedEmail): void {
  if (!deps.emails.enabled) return;
  deps.background.run(
    "email.failed",
    () =>
      sendWithCooldown(deps, email.kind, email.to, async () => email).catch((error: unknown) => {
        if (!(error instanceof CooldownError)) throw error;
      }),
    { kind: email.kind },
  );
}

/** `{ remaining }` of the cooldown for (kind, address); 0 when none runs. */
export async function cooldownRemaining(
  deps: { cooldowns: CooldownStore; options: { email: { cooldownSeconds: number } } },
  kind: EmailKind,
  address: string,
): Promise<{ remaining: number }> {
  const ms = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    deps.cooldowns.remainingMs(emailCooldownKey(kind, address)),
  );
  return { remaining: ms > 0 ? withinCooldown(ms, deps.options.email.cooldownSeconds * 1000) : 0 };
}

/**
 * A running cooldown's remaining time as the contract answers it: whole seconds in
 * (0, cooldown]. The stores measure on one clock, but instances whose clocks disagree can share a
 * store, so the answer is held to the cooldown.
 */
function withinCooldown(remainingMs: number, ttlMs: number): number {
  return Math.min(wholeSeconds(ttlMs), Math.max(1, wholeSeconds(remainingMs)));
}

export function requireEmailEnabled(deps: { emails: EmailService }): void {
  if (!deps.emails.enabled) throw new AuthError("EMAIL_DISABLED");
}
