import { CooldownError, guardPort, isInfrastructureFailure, wholeSeconds } from "../errors.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { CooldownKeys } from "../ports/joint-stores.js";

/** The 429 codes a throttle answers with. */
export type ThrottleCode =
  | "LOGIN_THROTTLED"
  | "TWO_FACTOR_THROTTLED"
  | "RATE_LIMITED"
  | "EMAIL_SIGN_IN_THROTTLED";

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
  /**
   * The subject's attempts in the window, this one included, as the store counted them: with
   * `onSuccess: "clear"` or `"refund"`, the failures so far plus the attempts still running.
   * Undefined for an attempt that was never counted (`UNCOUNTED`).
   */
  readonly count?: number | undefined;
  /** The attempt proved the subject (see `ThrottlePolicy.onSuccess`). */
  succeeded(): Promise<void>;
  /**
   * Set when `succeeded` is exactly one `clearKeys` of these keys on `store` (`onSuccess:
   * "clear"`, a store with `clearKeys`): a caller may have another write of that store clear
   * them instead of calling `succeeded` (a sign-in's session write, `JointStores`).
   */
  readonly clearing?: { store: CooldownStore; keys: CooldownKeys } | undefined;
  /**
   * The attempt could not be checked: a store or the hasher failed before the guess was
   * evaluated (an outage). Gives its hit back with one atomic `refundHit` (the count never goes
   * below zero), so an outage never counts against the subject. A lock the attempt took stays.
   * Never rejects: when the store is still down, the hit stays counted.
   */
  abandoned(): Promise<void>;
}

/**
 * The attempt's `hit` on the throttle's store through another call that does more in the same
 * step (a sign-in's hit that also reads its account: `JointStores.hitAndFindUserByEmail`); it
 * must count exactly as `store.hit(key, windowMs)` would.
 */
export type CountingHit = (key: string, windowMs: number) => Promise<{ count: number; remainingMs: number }>;

export interface Throttle {
  readonly policy: ThrottlePolicy;
  /**
   * Counts one attempt on `subject` before anything is checked (one atomic `hit`), so N
   * concurrent attempts get no more through than N sequential ones. Throws `CooldownError` with
   * the policy's code and the seconds to wait when refused.
   */
  attempt(subject: string, hit?: CountingHit): Promise<ThrottleAttempt>;
  /** Forgets the subject's counter and lock (e.g. after a password reset proved the address). */
  clear(subject: string): Promise<void>;
}

/** What an attempt that was never counted reports to: nothing to keep right. */
export const UNCOUNTED: ThrottleAttempt = {
  succeeded: async () => undefined,
  abandoned: async () => undefined,
};

/**
 * Runs the part of a check that comes before the guess is evaluated (a user lookup, a hash
 * verification) under counted `attempts`: when it fails with an infrastructure failure
 * (`isInfrastructureFailure`), every attempt is given back (`abandoned`) and the failure rethrown.
 * `evaluated` tells, at the time of the failure, whether a guess was already evaluated anyway
 * (e.g. one of several 2FA methods said no): then the attempts stay counted.
 */
export async function giveBackOnFailure<T>(
  attempts: readonly ThrottleAttempt[],
  check: () => Promise<T>,
  evaluated: () => boolean = () => false,
): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (isInfrastructureFailure(error) && !evaluated())
      await Promise.all(attempts.map((attempt) => attempt.abandoned()));
    throw error;
  }
}

/**
 * The one throttle mechanism of the core: failed logins per address, wrong 2FA codes per
 * account, step-up passwords, and every per-IP limit are instances of it.
 */
export function createThrottle(store: CooldownStore, policy: ThrottlePolicy): Throttle {
  const guard = <T>(call: () => Promise<T>) => guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", call);
  const counterKey = (subject: string) => `throttle:${policy.name}:${subject}`;
  const lockKey = (subject: string) => `throttle:${policy.name}:lock:${subject}`;
  const lockedKey = (subject: string) => `throttle:${policy.name}:locked:${subject}`;

  /**
   * Past the budget. Without a lock policy: refused until the window ends. With one, the first
   * attempt past the budget starts the lock and then marks the window as locked; any later one is
   * refused until that mark exists (with a pool of connections, attempt 7 may reach the store
   * before attempt 6) and then gets through only by taking the lock after it ran out.
   */
  const enforceLock = async (subject: string, over: number, windowRemainingMs: number) => {
    const { lock } = policy;
    if (!lock) throw new CooldownError(policy.code, wholeSeconds(windowRemainingMs));
    if (over === 1) {
      const started = await guard(() => store.acquire(lockKey(subject), lock.baseMs));
      await guard(() => store.acquire(lockedKey(subject), windowRemainingMs));
      throw new CooldownError(policy.code, wholeSeconds(started.remainingMs));
    }
    if ((await guard(() => store.remainingMs(lockedKey(subject)))) === 0)
      throw new CooldownError(policy.code, wholeSeconds(lock.baseMs));
    const lockMs = Math.min(lock.baseMs * 2 ** Math.min(over - 1, 30), lock.maxMs);
    const taken = await guard(() => store.acquire(lockKey(subject), lockMs));
    if (!taken.acquired) throw new CooldownError(policy.code, wholeSeconds(taken.remainingMs));
  };

  const locksOf = (subject: string) => (policy.lock ? [lockKey(subject), lockedKey(subject)] : []);
  const clear = async (subject: string) => {
    const locks = locksOf(subject);
    // One call where the store can (`clearKeys`), else the counter and each lock one by one.
    const { clearKeys } = store;
    if (clearKeys) return guard(() => clearKeys.call(store, [counterKey(subject)], locks));
    await guard(() => store.clearHits(counterKey(subject)));
    for (const key of locks) await guard(() => store.release(key));
  };

  return {
    policy,
    clear,
    async attempt(subject, hit) {
      const key = counterKey(subject);
      const { count, remainingMs } = await guard(() =>
        hit ? hit(key, policy.windowMs) : store.hit(key, policy.windowMs),
      );
      const over = count - policy.freeAttempts;
      // Best effort: a store that just failed is likely to fail this too (then the hit stays).
      const giveBack = () => store.refundHit(counterKey(subject)).catch(() => undefined);
      if (over > 0) {
        try {
          await enforceLock(subject, over, remainingMs);
        } catch (error) {
          // Counted, then the lock could not be read or taken: the attempt was never let through.
          if (!(error instanceof CooldownError)) await giveBack();
          throw error;
        }
      }
      return {
        count,
        clearing:
          policy.onSuccess === "clear" && store.clearKeys
            ? { store, keys: { counterKeys: [counterKey(subject)], cooldownKeys: locksOf(subject) } }
            : undefined,
        succeeded: async () => {
          if (policy.onSuccess === "clear") await clear(subject);
          else if (policy.onSuccess === "refund") await guard(() => store.refundHit(counterKey(subject)));
        },
        abandoned: giveBack,
      };
    },
  };
}
