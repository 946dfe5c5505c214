/** The error codes several routes share, grouped by what answers them. */

/** The 500s of a route that reads or writes the stores. */
export const DB = ["DATABASE_FAILURE"] as const;
/** The 500s of a send: the mailer, the templates, and the cooldown store. */
export const MAIL = [
  "EMAIL_SEND_FAILURE",
  "EMAIL_AUTHENTICATION_FAILURE",
  "EMAIL_TEMPLATE_FAILURE",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
] as const;
/** A second-factor check: its answers, its counters (in the cooldown store), the sealed TOTP secret. */
export const CODE_CHECK = [
  "TWO_FACTOR_CODE_MISSING",
  "WRONG_TWO_FACTOR_CODE",
  "TWO_FACTOR_THROTTLED",
  "TWO_FACTOR_DISABLED",
  "EMAIL_COOLDOWN_CACHE_FAILURE",
  "DATABASE_ENCRYPTION_FAILURE",
] as const;
/** A security setting: the signed-in user's record must still exist. */
export const SETTING = ["USER_NOT_FOUND", ...DB] as const;
