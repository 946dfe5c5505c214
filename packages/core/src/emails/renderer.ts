import { AuthError } from "../errors.js";
import type { Translator } from "../i18n/index.js";
import { EMAIL_KINDS } from "../options/email-kinds.js";
import type { EmailKind } from "../ports/mailer.js";
import { BRAND_SENTINELS, COMPILED_TEMPLATES } from "./compiled-templates.js";
import { type Brand, escapeAttribute, KIND_LAYOUT } from "./templates.js";

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
  /** Recovery codes the account has left (`recovery-code-used`); picks the plural form. */
  recoveryCodesLeft?: number | undefined;
  /**
   * A variant of a kind's wording, as an i18next context: `setup` makes `two-factor-code` read
   * `subject_setup`, `intro_setup` … (the code that turns codes by email on); a string without
   * the variant falls back to the plain one. `signIn` makes `no-principal-information` speak of a
   * sign-in by email instead of a password reset. `gone` makes `webhook-disabled` say that the
   * receiver answered 410 (without it, that a message failed through every retry).
   */
  variant?: "setup" | "signIn" | "kept" | "gone" | undefined;
  /** The account's new address (`email-changed`, sent to the old one). */
  newEmail?: string | undefined;
  /** The organization an invitation is to (`organization-invitation`). */
  organization?: string | undefined;
  /** The role an invitation grants (`organization-invitation`). */
  role?: string | undefined;
  /** The endpoint's URL (`webhook-disabled`; variant `gone` when its receiver answered 410). */
  webhookUrl?: string | undefined;
  details?: { time: string; browser: string | null; os: string | null; ip: string | null } | undefined;
}

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

export interface EmailRenderer {
  /**
   * Prepares every template once: the shipped ones are compiled at build time and only get the
   * brand filled in; host overrides (`email.templates`) are compiled with `mjml`, loaded on demand.
   * Later calls reuse the result.
   */
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

/** `#abc` → `#aabbcc`, as MJML writes colour attributes; other colours stay as they are. */
const longHex = (color: string) => color.replace(/^#(\w)(\w)(\w)$/, "#$1$1$2$2$3$3");

/**
 * A shipped template with this brand: each sentinel the build compiled it with becomes exactly
 * what MJML makes of `defaultTemplate(kind, brand)`'s brand values (attribute colours long, all
 * else copied). One pass, so a brand value that looks like a sentinel stays as it is.
 */
export function brandedTemplate(kind: EmailKind, brand: Brand): string {
  const compiled = COMPILED_TEMPLATES[kind];
  const values = new Map<string, string>([
    [BRAND_SENTINELS.name, escapeAttribute(brand.name)],
    [BRAND_SENTINELS.logoUrl, brand.logoUrl ? escapeAttribute(brand.logoUrl) : ""],
  ]);
  for (const key of ["primaryColor", "textColor", "backgroundColor"] as const) {
    values.set(longHex(BRAND_SENTINELS[key]), longHex(brand[key]));
    values.set(BRAND_SENTINELS[key], brand[key]);
  }
  // Longest first, so a sentinel never wins over a longer one that contains it.
  const pattern = new RegExp(
    [...values.keys()]
      .sort((a, b) => b.length - a.length)
      .map((value) => value.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))
      .join("|"),
    "g",
  );
  return (brand.logoUrl ? compiled.logo : compiled.text).replace(
    pattern,
    (match) => values.get(match) ?? match,
  );
}

/** `mjml` is an optional peer dependency: only hosts that override templates install it. */
async function loadMjml() {
  try {
    return (await import("mjml")).default;
  } catch (error) {
    throw new Error(
      'email.templates needs the "mjml" package to compile the overriding templates: install it next to @portcullis/core (npm install mjml), or remove email.templates',
      { cause: error },
    );
  }
}

export function createEmailRenderer(options: {
  brand: Brand;
  translator: Translator;
  /** MJML sources that replace the shipped ones, by kind. */
  templates?: Partial<Record<EmailKind, string>> | undefined;
}): EmailRenderer {
  const { brand, translator } = options;
  let compiled: Promise<Map<EmailKind, string>> | undefined;

  const compileAll = async () => {
    const result = new Map<EmailKind, string>();
    const overrides = EMAIL_KINDS.filter((kind) => options.templates?.[kind] !== undefined);
    const mjml2html = overrides.length > 0 ? await loadMjml() : undefined;
    for (const kind of EMAIL_KINDS) {
      const source = options.templates?.[kind];
      if (source === undefined || mjml2html === undefined) {
        result.set(kind, brandedTemplate(kind, brand));
        continue;
      }
      // One template per turn of the event loop, so requests arriving during start-up are not held up.
      await new Promise((resolve) => setImmediate(resolve));
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
  const forms = {
    ...(values.recoveryCodesLeft !== undefined ? { count: values.recoveryCodesLeft } : {}),
    ...(values.variant !== undefined ? { context: values.variant } : {}),
  };
  const t = (key: string, extra: Record<string, unknown> = {}) =>
    translator.t(key, locale, { brand, ...values, ...forms, ...extra });
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
