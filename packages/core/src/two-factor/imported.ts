import { Secret } from "otpauth";
import type { SecretInput } from "../options/auth-options.js";
import { secretOption } from "../options/secret-option.js";
import type { TwoFactorSettings } from "../ports/user-store.js";
import { createKeyedHash } from "../tokens/keys.js";
import { recoveryCodeHash } from "./recovery-codes.js";
import { createSecretBox } from "./secret-box.js";

/** A TOTP secret and recovery codes another system kept, in the clear (decrypted by the import). */
export interface ImportedTwoFactor {
  /** The TOTP secret, base32 (the `secret=` of the `otpauth://` URI); at least 80 bits. */
  totpSecret: string;
  /** The unused recovery codes; each works once, as Portcullis's own do. */
  recoveryCodes?: readonly string[];
}

/** Why an imported TOTP secret cannot be used, or null when it can. */
export function importedTotpSecretProblem(secret: string): string | null {
  if (!/^[A-Z2-7]+=*$/i.test(secret.replace(/\s/g, ""))) return "is not base32";
  const bytes = Secret.fromBase32(secret.replace(/\s/g, "").toUpperCase()).bytes.byteLength;
  return bytes < 10 ? `has ${bytes * 8} bits, fewer than 80` : null;
}

/**
 * Seals a keyed set of imported TOTP secrets as the core stores its own: the secret sealed and
 * the recovery codes hashed under `encryptionKey`, which must be the host's
 * `twoFactor.encryptionKey` (or its `secret` when that is unset), so that the imported account's
 * old authenticator app and codes keep working. Rejects with a `TypeError` when the key is not
 * one `createAuth` accepts or the secret is not a usable base32 one.
 */
export function createTwoFactorImporter(encryptionKey: SecretInput) {
  const parsed = secretOption.safeParse(encryptionKey);
  if (!parsed.success)
    throw new TypeError(`the encryption key ${parsed.error.issues[0]?.message ?? "is invalid"}`);
  const box = createSecretBox(parsed.data);
  const keyed = createKeyedHash(parsed.data, "recovery codes v1");
  return {
    /** The 2FA settings to store with the account: TOTP on and preferred. */
    async settings({ totpSecret, recoveryCodes = [] }: ImportedTwoFactor): Promise<TwoFactorSettings> {
      const problem = importedTotpSecretProblem(totpSecret);
      if (problem) throw new TypeError(`the TOTP secret ${problem}`);
      return {
        methods: ["totp"],
        preferredMethod: "totp",
        totpSecretEncrypted: await box.seal(totpSecret.replace(/\s/g, "").replace(/=+$/, "").toUpperCase()),
        recoveryCodeHashes: recoveryCodes.map((code) => recoveryCodeHash(keyed, code)),
      };
    },
  };
}

/** What `createTwoFactorImporter` returns. */
export type TwoFactorImporter = ReturnType<typeof createTwoFactorImporter>;
