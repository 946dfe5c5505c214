/**
 * The one email parser (SECURITY D5): a single address, no quoted local parts, no comments, no
 * lists, no whitespace or control characters. Anything that could become a second recipient
 * is refused rather than repaired.
 */
const LOCAL_PART = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** Trim, lower-case and NFC: the form used for lookups and cooldown keys. */
export function normalizeEmail(email: string): string {
  return email.trim().normalize("NFC").toLowerCase();
}

/** True when the normalized address is one plain mailbox we will send to. */
export function isValidEmail(normalized: string): boolean {
  if (normalized.length > 254) return false;
  const at = normalized.lastIndexOf("@");
  if (at <= 0 || at !== normalized.indexOf("@")) return false;
  const local = normalized.slice(0, at);
  const domain = normalized.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return false;
  const labels = domain.split(".");
  if (labels.length < 2) return false;
  return labels.every((label) => DOMAIN_LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1] ?? "");
}
