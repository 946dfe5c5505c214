import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import type { Limits } from "../limits/limits.js";
import { giveBackOnFailure } from "../limits/throttle.js";
import type { RequestContext } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import type { TwoFactorMethod, UserRecord } from "../ports/user-store.js";
import { emailCodeMatches } from "./email-code.js";
import type { SecretBox } from "./secret-box.js";
import { matchTotp, TOTP_REPLAY_WINDOW_MS } from "./totp.js";

/** What checking second-factor codes needs. */
export interface CheckDeps {
  limits: Limits;
  events: SecurityEvents;
  secretBox: SecretBox;
  cooldowns: CooldownStore;
  singleUseTokens: SingleUseTokenStore;
  clock: Clock;
}

/**
 * Checks a TOTP or emailed code for the user. The attempt is counted per account (and per IP)
 * before the code is looked at, so concurrent guesses get no more checks than sequential ones;
 * a right code clears the account's count. A TOTP code is accepted once (its time step is
 * claimed atomically, so a replay fails even in a new login); an emailed code is single use.
 * Without a `method`, a code of any enabled method is accepted (one attempt either way). Wrong
 * codes throw `WRONG_TWO_FACTOR_CODE`.
 */
export async function checkSecondFactor(
  deps: CheckDeps,
  user: UserRecord,
  method: TwoFactorMethod | undefined,
  code: string,
  request: RequestContext,
): Promise<void> {
  const { methods, preferredMethod } = user.twoFactor;
  if (method !== undefined && !methods.includes(method)) throw new AuthError("TWO_FACTOR_DISABLED");
  // Without a method, the code may come from any enabled one (preferred first): one attempt.
  const candidates =
    method !== undefined
      ? [method]
      : [...methods.filter((m) => m === preferredMethod), ...methods.filter((m) => m !== preferredMethod)];
  if (candidates.length === 0) throw new AuthError("TWO_FACTOR_DISABLED");
  const matches = (chosen: TwoFactorMethod) =>
    chosen === "totp"
      ? totpMatches(deps, user.id, user.twoFactor.totpSecretEncrypted, code)
      : emailCodeMatches(deps, user.id, code);
  let evaluated = false;
  await checkCounted(
    deps,
    user.id,
    request,
    async () => {
      for (const chosen of candidates) {
        if (await matches(chosen)) return true;
        evaluated = true;
      }
      return false;
    },
    () => evaluated,
  );
}

/**
 * Runs one second-factor check under the account's and the IP's budgets: counted first, then
 * `matches`; `WRONG_TWO_FACTOR_CODE` when it does not, the counts cleared (account) and given
 * back (IP) when it does. When `matches` fails on the machinery (a store, decryption) before any
 * code was evaluated (`evaluated`, false by default), both counts are given back: an outage never
 * counts against the account.
 */
export async function checkCounted(
  deps: Pick<CheckDeps, "limits" | "events">,
  userId: string,
  request: RequestContext,
  matches: () => Promise<boolean>,
  evaluated?: () => boolean,
): Promise<void> {
  const who = { ...request, userId };
  const fromIp = await deps.limits.ip("wrongTwoFactorCodes", who);
  const forAccount = await giveBackOnFailure([fromIp], () => deps.limits.twoFactor(userId, who));
  if (!(await giveBackOnFailure([forAccount, fromIp], matches, evaluated))) {
    deps.events.emit("two_factor.failed", who);
    throw new AuthError("WRONG_TWO_FACTOR_CODE");
  }
  await Promise.all([forAccount.succeeded(), fromIp.succeeded()]);
}

/** The cooldown key that marks the user's TOTP time step `step` as used. */
export const totpStepKey = (userId: string, step: number) => `two-factor:totp-step:${userId}:${step}`;

/** A TOTP code against a sealed secret, its time step claimed once per user (replays fail). */
export async function totpMatches(
  deps: Pick<CheckDeps, "secretBox" | "cooldowns" | "clock">,
  userId: string,
  sealedSecret: string | null,
  code: string,
): Promise<boolean> {
  if (!sealedSecret || !/^\d{6}$/.test(code)) return false;
  const secret = await deps.secretBox.open(sealedSecret);
  const step = matchTotp(secret, code, deps.clock.now());
  if (step === null) return false;
  const { acquired } = await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
    deps.cooldowns.acquire(totpStepKey(userId, step), TOTP_REPLAY_WINDOW_MS),
  );
  return acquired;
}
