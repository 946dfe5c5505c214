import { z } from "zod";
import { isWeakSecret, MIN_SECRET_BITS } from "../passwords/secret-strength.js";
import type { SecretInput } from "./auth-options.js";

const secretBytes = (secret: string | Uint8Array) =>
  typeof secret === "string" ? new TextEncoder().encode(secret) : secret;

const oneSecret = z
  .union([z.string(), z.instanceof(Uint8Array)])
  .refine((secret) => secretBytes(secret).byteLength >= 32, {
    message: "must be at least 32 bytes (256 bits); generate one with `openssl rand -base64 48`",
  })
  .refine((secret) => !isWeakSecret(secret), {
    message: `is too predictable (more than ${MIN_SECRET_BITS} bits of entropy needed: repeats, sequences, keyboard walks and placeholder words count for little); generate one with \`openssl rand -base64 48\``,
  });

/** A secret, or a list of them for rotation: the first signs (and seals), every one verifies. */
const secretSchema = z
  .union([oneSecret, z.array(oneSecret).min(1).max(10)])
  .transform((value) => (Array.isArray(value) ? value : [value]));

/** The validation of `secret` (and of `encryptionKey`): one secret or a list, as a list. */
export const secretOption = secretSchema as unknown as z.ZodType<(string | Uint8Array)[], SecretInput>;
