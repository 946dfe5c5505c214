import type { EmailKind } from "../ports/mailer.js";

/** Every kind once; the record's type makes the compiler refuse a kind left out or misspelt. */
const EVERY_KIND: Readonly<Record<EmailKind, true>> = {
  "email-verification": true,
  "password-reset": true,
  "no-principal-information": true,
  "identity-provider-information": true,
  "login-alert": true,
  "two-factor-code": true,
  "password-changed": true,
  "registration-attempt": true,
  "two-factor-changed": true,
  "recovery-code-used": true,
  "email-sign-in": true,
  "email-change": true,
  "email-changed": true,
  "account-deleted": true,
  "organization-invitation": true,
  "webhook-disabled": true,
};

/** The kinds of email Portcullis sends, one template each (`email.templates` overrides them by kind). */
export const EMAIL_KINDS = Object.keys(EVERY_KIND) as EmailKind[];
