import type { AuthContext } from "../context.js";
import { CooldownError, guardPort } from "../errors.js";
import { wholeSeconds } from "./email-flow.js";

const failuresKey = (email: string) => `login:failures:${email}`;
const lockKey = (email: string) => `login:lock:${email}`;

/**
 * `LOGIN_THROTTLED` while the address is locked. Runs before any password hashing, so a
 * throttled attempt costs one store read. Keyed by the normalized address, known or not.
 */
export async function assertLoginAllowed(ctx: AuthContext, email: string): Promise<void> {
  const remainingMs = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.remainingMs(lockKey(email)),
  );
  if (remainingMs > 0) throw new CooldownError("LOGIN_THROTTLED", wholeSeconds(remainingMs));
}

/** Counts a failed password step; past the free attempts, locks the address for a doubling time. */
export async function recordLoginFailure(ctx: AuthContext, email: string): Promise<void> {
  const { freeAttempts, baseLockSeconds, maxLockSeconds, windowSeconds } = ctx.options.loginThrottle;
  const failures = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.increment(failuresKey(email), windowSeconds * 1000),
  );
  if (failures <= freeAttempts) return;
  const lockSeconds = Math.min(
    baseLockSeconds * 2 ** Math.min(failures - freeAttempts - 1, 30),
    maxLockSeconds,
  );
  await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    ctx.cooldowns.acquire(lockKey(email), lockSeconds * 1000),
  );
  ctx.logger.warn({ event: "login.throttled", failures, lockSeconds }, "failed logins: address locked");
}

/** A successful password step forgets the failures. */
export async function clearLoginFailures(ctx: AuthContext, email: string): Promise<void> {
  await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () => ctx.cooldowns.resetCount(failuresKey(email)));
}
