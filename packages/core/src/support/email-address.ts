import { domainToASCII } from "node:url";

/**
 * The one email parser (security.md D5): a single address, no quoted local parts, no comments, no
 * lists, no whitespace or control characters. Anything that could become a second recipient
 * is refused rather than repaired.
 */
const LOCAL_PART = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * The one form of an address (docs/limits.md), used for lookups, uniqueness and cooldown keys:
 * trimmed, NFKC (so fullwidth `ｅｒｉｎ＠ｘ.test` is `erin@x.test`), lower-cased, and the domain
 * in its ASCII (IDNA) form (`bücher.de` is `xn--bcher-kva.de`). A domain IDNA refuses comes back
 * empty, so the address fails `isValidEmail`.
 */
export function normalizeEmail(email: string): string {
  const folded = email.normalize("NFKC").trim().toLowerCase();
  const at = folded.lastIndexOf("@");
  if (at === -1) return folded;
  const domain = folded.slice(at + 1);
  const ascii = /^[\x21-\x7e]*$/.test(domain) ? domain : domainToASCII(domain);
  return `${folded.slice(0, at)}@${ascii}`;
}

/** The longest address `isValidEmail` accepts (RFC 5321's path limit less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;

/** True when the normalized address is one plain mailbox we will send to. */
export function isValidEmail(normalized: string): boolean {
  if (normalized.length > MAX_EMAIL_LENGTH) return false;
  const at = normalized.lastIndexOf("@");
  if (at <= 0 || at !== normalized.indexOf("@")) return false;
  const local = normalized.slice(0, at);
  const domain = normalized.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  return labels.every((label) => DOMAIN_LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1] ?? "");
}
