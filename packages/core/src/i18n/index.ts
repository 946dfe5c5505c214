import { createInstance, type i18n } from "i18next";
import type { ErrorCode, ValidationIssue } from "../errors.js";
import { boundedMemo, createLru } from "../support/bounded-memo.js";
import { de } from "./de.js";
import { en, type Strings } from "./en.js";

/** Strings a host adds or overrides, per locale: any subset of the shipped keys, or new locales. */
export type LocaleResources = Record<string, DeepPartial<Strings> & Record<string, unknown>>;
type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** Translated error messages remembered per translator (see `errorMessage`). */
const MAX_CACHED_MESSAGES = 2_000;
/** `Accept-Language` headers whose negotiated locale is remembered per translator. */
const MAX_CACHED_HEADERS = 1_000;
const MAX_CACHED_HEADER_LENGTH = 256;

export const SHIPPED_LOCALES: Readonly<Record<string, Strings>> = { en, de };

/**
 * The translator of one `createAuth`: its own i18next instance (never the global one), set up
 * once and synchronously, plus the locale negotiation of docs/http-api.md.
 */
export interface Translator {
  readonly locales: readonly string[];
  readonly defaultLocale: string;
  /** `?locale=` first, then `Accept-Language`, then the default; exact → language → default. */
  resolveLocale(requested: string | undefined, acceptLanguage: string | undefined): string;
  errorMessage(code: ErrorCode, locale: string, values?: Record<string, unknown>): string;
  /** A field error's message in `locale` (`fieldErrors.<rule>`); its own `message` when it names no rule. */
  fieldMessage(issue: ValidationIssue, locale: string): string;
  t(key: string, locale: string, values?: Record<string, unknown>): string;
  readonly i18next: i18n;
}

/** An i18next instance of its own (never the global one) with the shipped and the host's strings. */
function createI18n(defaultLocale: string, resources: LocaleResources): i18n {
  const bundles: Record<string, { translation: Record<string, unknown> }> = {};
  for (const [locale, strings] of Object.entries(SHIPPED_LOCALES)) {
    bundles[locale] = { translation: structuredClone(strings) as unknown as Record<string, unknown> };
  }
  const instance = createInstance();
  instance.init({
    initAsync: false,
    resources: bundles,
    lng: defaultLocale,
    fallbackLng: defaultLocale === "en" ? "en" : [defaultLocale, "en"],
    interpolation: { escapeValue: false },
    returnNull: false,
    showSupportNotice: false,
  } as Parameters<typeof instance.init>[0]);
  for (const [locale, strings] of Object.entries(resources)) {
    instance.addResourceBundle(locale, "translation", strings, true, true);
  }
  return instance;
}

/** The locale of `locales` a language tag names, case-insensitively, falling back to its language. */
function localeMatcher(locales: readonly string[]): (tag: string) => string | undefined {
  const byLowercase = new Map(locales.map((locale) => [locale.toLowerCase(), locale]));
  return (tag) => {
    const lower = tag.trim().toLowerCase();
    if (lower === "") return undefined;
    return byLowercase.get(lower) ?? byLowercase.get(lower.split("-")[0] ?? "");
  };
}

export function createTranslator(defaultLocale: string, resources: LocaleResources = {}): Translator {
  const instance = createI18n(defaultLocale, resources);
  const locales = [...new Set([...Object.keys(SHIPPED_LOCALES), ...Object.keys(resources)])];
  const match = localeMatcher(locales);
  /**
   * Error messages already translated, by locale, code and values, in an LRU: an answer with field
   * errors asks for its message every time (the error bodies of other answers are remembered
   * whole, in the HTTP layer). Emptied whenever the instance's strings or language change, so
   * `translator.i18next` stays the source of truth.
   */
  const messages = createLru<string, string>(MAX_CACHED_MESSAGES);
  /** The locale an `Accept-Language` header comes to: browsers send a few of them, again and again. */
  const negotiate = (header: string) => parseAcceptLanguage(header).map(match).find(Boolean) ?? defaultLocale;
  const negotiateRemembered = boundedMemo(MAX_CACHED_HEADERS, negotiate);
  const forget = () => messages.clear();
  instance.store.on("added", forget);
  instance.store.on("removed", forget);
  instance.on("languageChanged", forget);
  instance.on("loaded", forget);

  return {
    locales,
    defaultLocale,
    i18next: instance,
    resolveLocale(requested, acceptLanguage) {
      if (requested) {
        const found = match(requested);
        if (found) return found;
      }
      if (!acceptLanguage) return defaultLocale;
      // Only headers of a browser's usual length are remembered, so the memo stays small.
      return acceptLanguage.length <= MAX_CACHED_HEADER_LENGTH
        ? negotiateRemembered(acceptLanguage)
        : negotiate(acceptLanguage);
    },
    errorMessage(code, locale, values) {
      const key =
        values === undefined
          ? `${locale}\u0000${code}`
          : `${locale}\u0000${code}\u0000${JSON.stringify(values)}`;
      let message = messages.get(key);
      if (message === undefined) {
        message = instance.t(`errors.${code}`, { lng: locale, ...values });
        messages.set(key, message);
      }
      return message;
    },
    fieldMessage(issue, locale) {
      if (issue.rule === undefined) return issue.message;
      return instance.t(`fieldErrors.${issue.rule}`, {
        lng: locale,
        ...issue.values,
        defaultValue: issue.message,
      });
    },
    t(key, locale, values) {
      return instance.t(key, { lng: locale, ...values });
    },
  };
}

/** Language tags of an `Accept-Language` header, highest quality first; `*` and q=0 dropped. */
export function parseAcceptLanguage(header: string): string[] {
  return header
    .slice(0, 512)
    .split(",")
    .slice(0, 20)
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const quality = q ? Number.parseFloat(q.slice(2)) : 1;
      return { tag: tag.trim(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.tag !== "" && entry.tag !== "*" && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((entry) => entry.tag);
}
