/** What a stored single-use token is for; a token never works for another purpose. */
export const PASSWORD_RESET_PURPOSE = "password-reset";
export const EMAIL_VERIFICATION_PURPOSE = "email-verification";
/** Marks a verification token that was used, so clicking the link again answers 304, not 401. */
export const EMAIL_VERIFICATION_USED_PURPOSE = `${EMAIL_VERIFICATION_PURPOSE}:used`;
export const CHALLENGE_PURPOSE = "two-factor-challenge";
export const EMAIL_CODE_PURPOSE = "two-factor-email-code";
export const TOTP_SETUP_PURPOSE = "totp-setup";
/** An identity-provider authorization in flight; its token is the `state` parameter. */
export const OAUTH_STATE_PURPOSE = "oauth-state";
/** The link that confirms a new address (`/email/change/confirm`), bound to the user and both addresses. */
export const EMAIL_CHANGE_PURPOSE = "email-change";
/** How long an address-change link works (docs/concepts.md, "Account self-service": 24 h). */
export const EMAIL_CHANGE_TOKEN_TTL_MS = 24 * 3600 * 1000;

/**
 * An emailed sign-in: its link's token and its code (keyed by user and code), saved together by
 * one request; a newer request replaces both, and a sign-in with either deletes both.
 */
export const EMAIL_SIGN_IN_PURPOSE = "email-sign-in";

/** How long an expired link's token is kept, so it can be told from an unknown one. */
export const EXPIRED_TOKEN_GRACE_MS = 24 * 3600 * 1000;

/**
 * How long a link token stays claimed by the request using it (`SingleUseTokenStore.claimToken`): longer
 * than a reset takes under load (a queue of argon2 hashes), short enough that a link whose request
 * died (kill -9, a crash) works again a minute later.
 */
export const TOKEN_CLAIM_LEASE_MS = 60_000;

/** A password sign-in whose account must set a new password first (`admin.requirePasswordChange`). */
export const PASSWORD_CHANGE_PURPOSE = "password-change-required";
/** A WebAuthn challenge in flight (passkey registration, sign-in, step-up); its token is the challenge. */
export const PASSKEY_CHALLENGE_PURPOSE = "passkey-challenge";

/**
 * A browser trusted to skip the second factor of a password sign-in (`trustBrowser: true`),
 * keyed by a hash of the account and the browser's device id.
 */
export const TRUSTED_BROWSER_PURPOSE = "trusted-browser";
