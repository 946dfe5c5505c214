import { createTransport } from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { AuthError } from "../errors.js";
import type { Mailer } from "../ports/mailer.js";

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` (or `smtps://`), or nodemailer's SMTP transport options. */
  url: string | SMTPTransport.Options;
  /** The sender, e.g. `"Acme" <no-reply@acme.test>`. */
  from: string;
  /**
   * Upper bound for connecting, greeting and each socket wait, in milliseconds (nodemailer's own
   * timeouts; the whole send is bounded by the core's `email.sendTimeoutMs`).
   */
  timeoutMs?: number;
}

/** nodemailer's error codes for a refused login. */
const AUTH_ERROR_CODES = new Set(["EAUTH", "ENOAUTH", "EOAUTH2"]);

/**
 * A `Mailer` that sends through SMTP with nodemailer. A refused SMTP login is
 * `EMAIL_AUTHENTICATION_FAILURE`; any other connection or send error, and a connection that
 * stalls longer than `timeoutMs`, is `EMAIL_SEND_FAILURE` (the original error stays as `cause`).
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer & { close(): void } {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const base = typeof options.url === "string" ? { url: options.url } : options.url;
  const transport = createTransport({
    ...base,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  } as SMTPTransport.Options);

  return {
    async send(message) {
      try {
        await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          html: message.html,
          text: message.text,
          headers: { "Content-Language": message.locale },
          disableFileAccess: true,
          disableUrlAccess: true,
        });
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        throw new AuthError(
          typeof code === "string" && AUTH_ERROR_CODES.has(code)
            ? "EMAIL_AUTHENTICATION_FAILURE"
            : "EMAIL_SEND_FAILURE",
          { cause: error },
        );
      }
    },
    close: () => transport.close(),
  };
}
