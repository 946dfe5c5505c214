import type SMTPTransport from "nodemailer/lib/smtp-transport/index.js";
import { AuthError } from "../errors.js";
import type { Mailer } from "../ports/mailer.js";

/**
 * nodemailer's SMTP transport options (`host`, `port`, `secure`, `auth`, `tls`, `pool`, …), passed
 * through as they are; see https://nodemailer.com/smtp/. Declared here so that the types of
 * `@portcullis/core` do not need `@types/nodemailer`.
 */
export interface SmtpTransportOptions {
  host?: string;
  port?: number;
  secure?: boolean;
  auth?: { user?: string; pass?: string; [option: string]: unknown };
  tls?: Record<string, unknown>;
  [option: string]: unknown;
}

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` (or `smtps://`), or nodemailer's SMTP transport options. */
  url: string | SmtpTransportOptions;
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

/** Refuses options nodemailer would silently replace with defaults (`url: undefined` → 127.0.0.1:587). */
function checkOptions(options: SmtpMailerOptions): void {
  const { url, from, timeoutMs } = options ?? {};
  if (typeof url === "string") {
    let protocol = "";
    try {
      protocol = new URL(url).protocol;
    } catch {}
    // The value is not repeated: it may hold the SMTP password.
    if (protocol !== "smtp:" && protocol !== "smtps:") {
      throw new TypeError("createSmtpMailer: `url` must be an smtp:// or smtps:// URL");
    }
  } else if (typeof url !== "object" || url === null || Array.isArray(url)) {
    throw new TypeError(
      `createSmtpMailer: \`url\` is required (an smtp:// or smtps:// URL, or nodemailer's SMTP options), got ${url === null ? "null" : typeof url}`,
    );
  } else if (!["host", "service", "url"].some((key) => typeof url[key] === "string")) {
    throw new TypeError(
      "createSmtpMailer: `url` as options needs a `host` (or nodemailer's `service` or `url`)",
    );
  }
  if (typeof from !== "string" || from.trim() === "") {
    throw new TypeError(
      "createSmtpMailer: `from` is required (the sender, e.g. `Acme <no-reply@acme.test>`)",
    );
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new TypeError("createSmtpMailer: `timeoutMs` must be a positive number of milliseconds");
  }
}

/** `nodemailer` is an optional peer dependency: only hosts that send through SMTP install it. */
async function loadNodemailer(): Promise<typeof import("nodemailer")> {
  try {
    return await import("nodemailer");
  } catch (error) {
    throw new Error(
      'createSmtpMailer needs the "nodemailer" package: install it next to @portcullis/core (npm install nodemailer)',
      { cause: error },
    );
  }
}

/**
 * A `Mailer` that sends through SMTP with nodemailer (an optional peer dependency, loaded here
 * only). A refused SMTP login is `EMAIL_AUTHENTICATION_FAILURE`; any other connection or send
 * error, a missing `nodemailer`, and a connection that stalls longer than `timeoutMs`, is
 * `EMAIL_SEND_FAILURE` (the original error stays as `cause`). Throws a `TypeError` naming the
 * option when `url`, `from` or `timeoutMs` is missing or malformed.
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer & { close(): void } {
  checkOptions(options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const base = typeof options.url === "string" ? { url: options.url } : options.url;
  let closed = false;
  // Loaded right away (not on the first send), so a missing package shows before mail is due.
  const transport = loadNodemailer().then(({ createTransport }) => {
    const created = createTransport({
      ...base,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    } as SMTPTransport.Options);
    if (closed) created.close();
    return created;
  });
  transport.catch(() => {}); // reported by each send

  return {
    async send(message) {
      try {
        await (await transport).sendMail({
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
    close() {
      closed = true;
      transport.then(
        (created) => created.close(),
        () => {},
      );
    },
  };
}
