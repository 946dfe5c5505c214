import { AuthError } from "../errors.js";
import type { Logger } from "../ports/logger.js";
import type { EmailKind, Mailer } from "../ports/mailer.js";
import type { BackgroundTasks } from "../support/background.js";
import { withTimeout } from "../support/with-timeout.js";
import type { EmailRenderer, EmailValues } from "./renderer.js";

/** The frontend pages email links point to, relative to `appOrigin`. */
export interface EmailLinks {
  verifyEmail: string;
  resetPassword: string;
  forgotPassword: string;
  signIn: string;
  signUp: string;
  securitySettings: string;
  /** The page of an emailed sign-in link (with `?token=`): it signs in with a POST, never on GET. */
  emailSignIn: string;
  confirmEmailChange: string;
  /** The page of an organization invitation's link (with `?token=`). */
  acceptInvitation: string;
}

export interface EmailService {
  readonly enabled: boolean;
  /**
   * Renders and sends one email, waiting for the mailer. Throws `EMAIL_DISABLED`,
   * `EMAIL_TEMPLATE_FAILURE`, `EMAIL_AUTHENTICATION_FAILURE` or `EMAIL_SEND_FAILURE` (also when
   * the mailer takes longer than the send timeout).
   */
  send(kind: EmailKind, to: string, locale: string, values: Omit<EmailValues, "email">): Promise<void>;
  /** A side-effect email (login alert, notices): sent without delaying the caller; failures are logged, never thrown. Skipped when email is disabled. */
  sendInBackground(kind: EmailKind, to: string, locale: string, values: Omit<EmailValues, "email">): void;
  /** A link to a configured frontend page, with the token as `?token=` when given; never from request data ("" without `appOrigin`). */
  link(page: keyof EmailLinks, token?: string): string;
}

export function createEmailService(options: {
  enabled: boolean;
  mailer: Mailer | undefined;
  renderer: EmailRenderer;
  appOrigin: string | undefined;
  links: EmailLinks;
  sendTimeoutMs: number;
  logger: Logger;
  background: BackgroundTasks;
}): EmailService {
  const { renderer, logger } = options;
  const base = options.appOrigin?.replace(/\/+$/, "");

  const send: EmailService["send"] = async (kind, to, locale, values) => {
    const mailer = options.mailer;
    if (!options.enabled || mailer === undefined) throw new AuthError("EMAIL_DISABLED");
    const { subject, html, text } = await renderer.render(kind, locale, { ...values, email: to });
    try {
      await withTimeout(
        mailer.send({ to, subject, html, text, kind, locale }),
        options.sendTimeoutMs,
        `mailer did not answer within ${options.sendTimeoutMs} ms`,
      );
    } catch (error) {
      if (
        error instanceof AuthError &&
        (error.code === "EMAIL_AUTHENTICATION_FAILURE" || error.code === "EMAIL_SEND_FAILURE")
      ) {
        throw error;
      }
      throw new AuthError("EMAIL_SEND_FAILURE", { cause: error });
    }
    logger.info({ event: "email.sent", kind, locale }, "email sent");
  };

  return {
    enabled: options.enabled,
    send,
    sendInBackground(kind, to, locale, values) {
      if (!options.enabled) return;
      options.background.run("email.failed", () => send(kind, to, locale, values), { kind });
    },
    link(page, token) {
      // appOrigin is required while email is enabled; without email no link is ever sent.
      if (base === undefined) return "";
      const url = new URL(`${base}${options.links[page]}`);
      if (token !== undefined) url.searchParams.set("token", token);
      return url.toString();
    },
  };
}
