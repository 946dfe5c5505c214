import { Secret, TOTP } from "otpauth";

/** RFC 6238 defaults (security.md E3): 30 s steps, 6 digits, SHA-1; drift window ±1 step. */
const PERIOD = 30;
const DIGITS = 6;
const WINDOW = 1;

/** A new TOTP secret: 160 random bits, base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://` URI authenticator apps scan. */
export function totpUri(secretBase32: string, issuer: string, account: string): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secretBase32),
    period: PERIOD,
    digits: DIGITS,
  }).toString();
}

/** The code for `timestampMs` (for tests and tools; the server only validates). */
export function totpCode(secretBase32: string, timestampMs: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretBase32),
    period: PERIOD,
    digits: DIGITS,
    timestamp: timestampMs,
  });
}

/** The time step the code matches within ±1 step of `nowMs`, or null. */
export function matchTotp(secretBase32: string, code: string, nowMs: number): number | null {
  const delta = TOTP.validate({
    token: code,
    secret: Secret.fromBase32(secretBase32),
    period: PERIOD,
    digits: DIGITS,
    timestamp: nowMs,
    window: WINDOW,
  });
  return delta === null ? null : TOTP.counter({ period: PERIOD, timestamp: nowMs }) + delta;
}

/** How long a used step must stay remembered to refuse its replay: the whole drift window. */
export const TOTP_REPLAY_WINDOW_MS = (2 * WINDOW + 1) * PERIOD * 1000;

/**
 * Every time step a code accepted until `nowMs` may have claimed and still be remembered for
 * (`TOTP_REPLAY_WINDOW_MS`), oldest first: what an account's erasure releases.
 */
export function totpStepsRemembered(nowMs: number): number[] {
  const first = Math.floor((nowMs - TOTP_REPLAY_WINDOW_MS) / 1000 / PERIOD) - WINDOW;
  const last = Math.floor(nowMs / 1000 / PERIOD) + WINDOW;
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}
