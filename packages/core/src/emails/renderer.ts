import { AuthError } from "../errors.js";
import type { Translator } from "../i18n/index.js";
import type { EmailKind } from "../ports/mailer.js";
import { type Brand, defaultTemplate, EMAIL_KINDS, KIND_LAYOUT } from "./templates.js";

/** What a send knows; each kind uses the fields its strings and layout need. */
export interface EmailValues {
  /** The recipient, shown in the text. */
  email: string;
  name?: string | null | undefined;
  /** The button's target, built from configured URLs only. */
  link?: string | undefined;
  code?: string | undefined;
  hours?: number | undefined;
  minutes?: number | undefined;
  providers?: string | undefined;
  method?: string | undefined;
  change?: "added" | "removed" | undefined;
  details?: { time: string; browser: string | null; os: string | null; ip: string | null } | undefined;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

export interface EmailRenderer {
  /** Compiles every template once (MJML → HTML with `{{slot}}` placeholders); later calls reuse it. */
  compile(): Promise<void>;
  /** Fills a compiled template with escaped, localized strings. Throws `EMAIL_TEMPLATE_FAILURE`. */
  render(kind: EmailKind, locale: string, values: EmailValues): Promise<RenderedEmail>;
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
const SLOT = /\{\{(\w+)\}\}/g;

export function createEmailRenderer(options: {
  brand: Brand;
  translator: Translator;
  /** MJML sources that replace the shipped ones, by kind. */
  templates?: Partial<Record<EmailKind, string>> | undefined;
}): EmailRenderer {
  const { brand, translator } = options;
  let compiled: Promise<Map<EmailKind, string>> | undefined;

  const compileAll = async () => {
    const { default: mjml2html } = await import("mjml");
    const result = new Map<EmailKind, string>();
    for (const kind of EMAIL_KINDS) {
      // One template per turn of the event loop, so requests arriving during start-up are not held up.
      await new Promise((resolve) => setImmediate(resolve));
      const source = options.templates?.[kind] ?? defaultTemplate(kind, brand);
      // `fonts: {}`: no web-font <link> to a third party, so opening an email tells nobody.
      const output = await mjml2html(source, { validationLevel: "strict", keepComments: false, fonts: {} });
      if (output.errors.length > 0) {
        throw new Error(`MJML errors in ${kind}: ${output.errors.map((e) => e.formattedMessage).join("; ")}`);
      }
      result.set(kind, output.html);
    }
    return result;
  };

  const ensureCompiled = () => {
    compiled ??= compileAll().catch((error: unknown) => {
      compiled = undefined;
      throw new AuthError("EMAIL_TEMPLATE_FAILURE", { cause: error });
    });
    return compiled;
  };

  return {
    async compile() {
      await ensureCompiled();
    },
    async render(kind, locale, values) {
      const template = (await ensureCompiled()).get(kind);
      if (template === undefined) throw new AuthError("EMAIL_TEMPLATE_FAILURE");
      try {
        const slots = localizedSlots(translator, kind, locale, brand.name, values);
        const html = template.replace(SLOT, (_, slot: string) => escapeHtml(slots[slot] ?? ""));
        return { subject: slots.subject ?? "", html, text: plainText(kind, slots) };
      } catch (error) {
        throw new AuthError("EMAIL_TEMPLATE_FAILURE", { cause: error });
      }
    },
  };
}

/** Every slot's text for one send, unescaped (escaping happens when it goes into HTML). */
function localizedSlots(
  translator: Translator,
  kind: EmailKind,
  locale: string,
  brand: string,
  values: EmailValues,
): Record<string, string> {
  const t = (key: string, extra: Record<string, unknown> = {}) =>
    translator.t(key, locale, { brand, ...values, ...extra });
  const method = values.method ? t(`emails.two-factor-changed.${values.method}`) : "";
  const change = values.change ? t(`emails.two-factor-changed.${values.change}`, { method }) : "";
  const slots: Record<string, string> = {
    locale,
    subject: t(`emails.${kind}.subject`),
    heading: t(`emails.${kind}.heading`),
    greeting: values.name
      ? t("emails.common.greetingName", { name: values.name })
      : t("emails.common.greeting"),
    intro: t(`emails.${kind}.intro`, { change }),
    outro: t(`emails.${kind}.outro`),
    footer: t("emails.common.footer"),
    linkFallback: t("emails.common.linkFallback"),
    link: values.link ?? "",
    code: values.code ?? "",
  };
  if (KIND_LAYOUT[kind].button) slots.button = t(`emails.${kind}.button`);
  if (values.details) {
    const unknown = t("emails.login-alert.unknown");
    for (const row of ["time", "browser", "os", "ip"] as const) {
      slots[`${row}Label`] = t(`emails.login-alert.${row}`);
      slots[row] = values.details[row] ?? unknown;
    }
  }
  return slots;
}

function plainText(kind: EmailKind, slots: Record<string, string>): string {
  const layout = KIND_LAYOUT[kind];
  const parts = [slots.heading, slots.greeting, slots.intro];
  if (layout.details) {
    parts.push(
      ["time", "browser", "os", "ip"].map((row) => `${slots[`${row}Label`]}: ${slots[row]}`).join("\n"),
    );
  }
  if (layout.code) parts.push(slots.code);
  if (layout.button) parts.push(`${slots.button}:\n${slots.link}`);
  parts.push(slots.outro, `--\n${slots.footer}`);
  return `${parts.join("\n\n")}\n`;
}
