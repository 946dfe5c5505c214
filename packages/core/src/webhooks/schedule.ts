const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The waits between the attempts of one message: the first retry 5 seconds after the first
 * failure, the last about 72 hours after it (71.6 h in all). Eleven attempts in total.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
];

/**
 * When the next attempt of a message is due (ms) after its `attempts`-th attempt failed at `now`:
 * the matching wait times `scale`, or null when the back-off is used up (the message failed for good).
 */
export function nextAttemptAt(attempts: number, now: number, scale: number): number | null {
  const delay = WEBHOOK_RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined || attempts < 1) return null;
  return now + Math.max(1, Math.round(delay * scale));
}
