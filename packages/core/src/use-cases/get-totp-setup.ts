import type { AuthContext } from "../context.js";
import type { Call } from "../model.js";
import { TOTP_SETUP_PURPOSE } from "../tokens/purposes.js";
import { issueSingleUseToken } from "../tokens/single-use-token.js";
import { newRecoveryCodes, recoveryCodeHash } from "../two-factor/recovery-codes.js";
import { requireStepUp, requireVerifiedAddress } from "../two-factor/settings.js";
import { newTotpSecret, totpUri } from "../two-factor/totp.js";

/** How long a started TOTP setup can be confirmed. */
const SETUP_TTL_MS = 10 * 60 * 1000;

/**
 * A new TOTP secret (160 bits, base32), its otpauth URI and 10 recovery codes, plus a setup token
 * that `confirmTotpSetup` needs. Nothing changes on the account until then.
 */
export async function getTotpSetup(
  ctx: AuthContext,
  call: Call,
): Promise<{ secret: string; otpauthUri: string; recoveryCodes: string[]; setupToken: string }> {
  const user = await requireStepUp(ctx, call);
  requireVerifiedAddress(user);
  const secret = newTotpSecret();
  const recoveryCodes = newRecoveryCodes();
  const setupToken = await issueSingleUseToken(ctx, {
    purpose: TOTP_SETUP_PURPOSE,
    userId: user.id,
    ttlMs: SETUP_TTL_MS,
    data: {
      secret: await ctx.secretBox.seal(secret),
      recoveryCodeHashes: JSON.stringify(
        recoveryCodes.map((code) => recoveryCodeHash(ctx.recoveryCodes, code)),
      ),
    },
    replaceOthers: true,
    failureCode: "DATABASE_FAILURE",
  });
  const issuer = ctx.options.twoFactor.issuer ?? ctx.options.email.brand.name;
  return { secret, otpauthUri: totpUri(secret, issuer, user.email), recoveryCodes, setupToken };
}
