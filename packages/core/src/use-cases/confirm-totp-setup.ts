import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import type { Call, User } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { TOTP_SETUP_PURPOSE } from "../tokens/purposes.js";
import { holdSingleUseToken } from "../tokens/single-use-token.js";
import { checkCounted, totpMatches } from "../two-factor/check.js";
import { checkEnabling, saveTwoFactor } from "../two-factor/settings.js";
import { confirmTotpInput, parseInput } from "../validation.js";

/**
 * Turns TOTP on with a code from the new secret; it becomes preferred, and every other session
 * ends. Fail-safe order (docs/security.md): the setup token is held (claimed) → the code is checked
 * (a wrong one releases the token for another try) → the other sessions end → TOTP is saved → the
 * other sessions end again → the token is consumed. A failure before TOTP is saved leaves 2FA as it
 * was and the setup usable; after it, TOTP on and the other sessions gone.
 */
export async function confirmTotpSetup(ctx: AuthContext, call: Call, input: unknown): Promise<User> {
  const { request = {} } = call;
  const {
    user,
    principal,
    input: { setupToken, code },
  } = await checkEnabling(ctx, call, () => parseInput(confirmTotpInput, input));
  const held = await holdSingleUseToken(ctx, TOTP_SETUP_PURPOSE, setupToken);
  if (!held) throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  if (held.expired || held.record.userId !== user.id) {
    await held.consume().catch(() => held.release());
    throw new AuthError("TWO_FACTOR_TOKEN_INVALID");
  }
  const { record } = held;
  try {
    const sealed = String(record.data?.secret ?? "");
    // A wrong code (or a throttle answer) ends up in the catch below: the setup stays usable.
    await checkCounted(ctx, user.id, request, () =>
      totpMatches(ctx, user.id, sealed, code.replace(/\s/g, "")),
    );
    const endOthers = () => endUserSessions(ctx, user.id, principal.sessionId);
    await endOthers();
    const methods: TwoFactorMethod[] = [...user.twoFactor.methods.filter((m) => m !== "totp"), "totp"];
    const result = await saveTwoFactor(
      ctx,
      user,
      {
        ...user.twoFactor,
        methods,
        preferredMethod: "totp",
        totpSecretEncrypted: sealed,
        recoveryCodeHashes: JSON.parse(String(record.data?.recoveryCodeHashes ?? "[]")) as string[],
      },
      { change: "added", method: "totp" },
      request,
    );
    await endOthers();
    await held.consume();
    return result;
  } catch (error) {
    await held.release();
    throw error;
  }
}
