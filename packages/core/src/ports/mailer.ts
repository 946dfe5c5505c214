/** The kinds of email Portcullis sends, one MJML template each. */
export type EmailKind =
  | "email-verification"
  | "password-reset"
  | "no-principal-information"
  | "identity-provider-information"
  | "login-alert"
  | "two-factor-code"
  | "password-changed"
  | "registration-attempt"
  | "two-factor-changed"
  | "recovery-code-used"
  | "email-sign-in"
  | "email-change"
  | "email-changed"
  | "account-deleted"
  | "organization-invitation"
  | "webhook-disabled";

/** One rendered email, ready to send. */
export interface EmailMessage {
  /** One normalized address; never a list. */
  to: string;
  subject: string;
  html: string;
  text: string;
  kind: EmailKind;
  /** The locale it was rendered in, e.g. `de`. */
  locale: string;
}

/**
 * Sends one email. Resolves once the transport accepted it; rejects on any failure. A mailer
 * may throw an `AuthError` with `EMAIL_AUTHENTICATION_FAILURE` or `EMAIL_SEND_FAILURE`; any
 * other error is reported as `EMAIL_SEND_FAILURE`.
 */
export interface Mailer {
  send(message: EmailMessage): Promise<void>;
}
