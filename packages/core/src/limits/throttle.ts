import { CooldownError, guardPort } from "../errors.js";
import type { CooldownStore } from "../ports/cooldown-store.js";

/** The 429 codes a throttle answers with. */
export type ThrottleCode = "LOGIN_THROTTLED" | "TWO_FACTOR_THROTTLED" | "RATE_LIMITED";

/** Whole seconds, rounded up, as `remaining` and `Retry-After` carry them. */
export const wholeSeconds = (ms: number) => Math.ceil(ms / 1000);

export interface ThrottlePolicy {
  /** Names the counter in store keys, e.g. `login` → `throttle:login:<subject>`. */
  name: string;
  code: ThrottleCode;
  /** Attempts let through in one window before the throttle refuses. */
  freeAttempts: number;
  /** The counting window, from the first attempt; the counter starts again after it. */
  windowMs: number;
  /**
   * Past the free attempts, a progressive lock: the first over-budget attempt is refused and
   * locks the subject for `baseMs`; each later lock lets exactly one attempt through when it
   * ends and doubles (counting every refused attempt too) up to `maxMs`. Without `lock`, a fixed
   * window: everything past the budget is refused until the window ends.
   */
  lock?: { baseMs: number; maxMs: number } | undefined;
  /**
   * What proving the subject does: `clear` forgets its counter and lock (a right password for an
   * address); `refund` gives back this one attempt (a per-IP limit on failures only); `keep`
   * leaves the count (limits on every request, e.g. registrations per IP).
   */
  onSuccess: "clear" | "refund" | "keep";
}

/** An attempt the throttle let through; report how it went so the count is kept right. */
export interface ThrottleAttempt {
  /** The attempt proved the subject (see `ThrottlePolicy.onSuccess`). */
  succeeded(): Promise<void>;
}

export interface Throttle {
  readonly policy: ThrottlePolicy;
  /**
   * Counts one attempt on `subject` before anything is checked (one atomic `hit`), so N
   * concurrent attempts get no more through than N sequential ones. Throws `CooldownError` with
   * the policy's code and the seconds to wait when refused.
   */
  attempt(subject: string): Promise<ThrottleAttempt>;
  /** Forgets the subject's counter and lock (e.g. after a password reset proved the address). */
  clear(subject: string): Promise<void>;
}

const LET_THROUGH: ThrottleAttempt = { succeeded: async () => undefined };

/**
 * The one throttle mechanism of the core: failed logins per address, wrong 2FA codes per
 * account, step-up passwords, and every per-IP limit are instances of it.
 */
export function createThrottle(store: CooldownStore, policy: ThrottlePolicy): Throttle {
  const guard = <T>(call: () => Promise<T>) => guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", call);
  const counterKey = (subject: string) => `throttle:${policy.name}:${subject}`;
  const lockKey = (subject: string) => `throttle:${policy.name}:lock:${subject}`;

  const clear = async (subject: string) => {
    await guard(() => store.clearHits(counterKey(subject)));
    if (policy.lock) await guard(() => store.release(lockKey(subject)));
  };

  return {
    policy,
    clear,
    async attempt(subject) {
      const { count, remainingMs } = await guard(() => store.hit(counterKey(subject), policy.windowMs));
      const over = count - policy.freeAttempts;
      if (over > 0) {
        if (!policy.lock) throw new CooldownError(policy.code, wholeSeconds(remainingMs));
        const lockMs = Math.min(policy.lock.baseMs * 2 ** Math.min(over - 1, 30), policy.lock.maxMs);
        const lock = await guard(() => store.acquire(lockKey(subject), lockMs));
        // The first attempt past the budget only starts the lock; later ones get through one per lock.
        if (!lock.acquired || over === 1)
          throw new CooldownError(policy.code, wholeSeconds(lock.remainingMs));
      }
      if (policy.onSuccess === "keep") return LET_THROUGH;
      return {
        succeeded: () =>
          policy.onSuccess === "clear" ? clear(subject) : guard(() => store.refundHit(counterKey(subject))),
      };
    },
  };
}
