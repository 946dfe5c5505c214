import { createHmac, randomBytes } from "node:crypto";
import type { WebhookSecret } from "../ports/webhook-store.js";

/** The Standard Webhooks headers of one message. */
export interface WebhookSignatureHeaders {
  /** The audit entry's id: the same for every attempt and redelivery of the message. */
  "webhook-id": string;
  /** When this attempt was signed, in whole seconds since the Unix epoch. */
  "webhook-timestamp": string;
  /** `v1,<base64 HMAC-SHA-256>` for each secret in use, separated by spaces. */
  "webhook-signature": string;
}

/** A new signing secret: `whsec_` and the base64 of 24 random bytes (the Standard Webhooks format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * The secrets that sign at `now`: the current one (no `expiresAt`) and the rotated-out ones whose
 * `expiresAt` is still ahead, in the endpoint's order (current first).
 */
export function secretsInUse(secrets: readonly WebhookSecret[], now: number): WebhookSecret[] {
  return secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > now);
}

/** The HMAC key of a `whsec_…` secret: the base64 after the prefix, decoded. */
const secretKey = (secret: string) =>
  Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");

/**
 * Signs `body` as message `id` at `timestampMs` with each of `secrets` (plain `whsec_…` values),
 * so a receiver that knows any one of them verifies it (during a rotation, the old and the new).
 */
export function signWebhook(message: {
  id: string;
  timestampMs: number;
  body: string;
  secrets: readonly string[];
}): WebhookSignatureHeaders {
  if (message.secrets.length === 0) throw new TypeError("a webhook needs at least one secret to sign with");
  const timestamp = String(Math.floor(message.timestampMs / 1000));
  // The Standard Webhooks scheme, with node:crypto's HMAC (the `standardwebhooks` package signs
  // the same bytes with a JavaScript SHA-256, 6 times slower; the tests verify with the package):
  // HMAC-SHA-256 of `<id>.<timestamp>.<body>` under the secret's base64-decoded bytes.
  const signed = `${message.id}.${timestamp}.${message.body}`;
  const signatures = message.secrets.map(
    (secret) => `v1,${createHmac("sha256", secretKey(secret)).update(signed).digest("base64")}`,
  );
  return {
    "webhook-id": message.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signatures.join(" "),
  };
}
