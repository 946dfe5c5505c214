import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { endSession } from "../sessions/session-lifecycle.js";
import { parseRefreshToken } from "../tokens/refresh-token.js";

/**
 * Ends the current session: the one of a valid access token, else the one of the current
 * refresh token. Succeeds also when neither identifies a session (there is nothing to end). Ending
 * an impersonation emits `session.revoked` with reason `impersonation_ended` and the admin as `actor`.
 */
export async function logout(
  ctx: AuthContext,
  _call: Call,
  tokens: { accessToken?: string | undefined; refreshToken?: string | undefined },
): Promise<{ success: true }> {
  const sessionId =
    (await sessionOfAccessToken(ctx, tokens.accessToken)) ??
    (await sessionOfRefreshToken(ctx, tokens.refreshToken));
  if (sessionId) {
    const deleted = await endSession(ctx, sessionId);
    // An impersonation's end is the admin's doing, not the user's logout.
    if (deleted?.impersonatedBy !== undefined) {
      ctx.events.emit("session.revoked", {
        userId: deleted.userId,
        sessionId,
        reason: "impersonation_ended",
        actor: deleted.impersonatedBy,
      });
    } else if (deleted) {
      ctx.events.emit("session.revoked", { userId: deleted.userId, sessionId, reason: "logout" });
    }
  }
  return { success: true };
}

async function sessionOfAccessToken(ctx: AuthContext, token: string | undefined): Promise<string | null> {
  if (!token) return null;
  try {
    return (await ctx.accessTokens.verify(token)).sessionId;
  } catch (error) {
    if (error instanceof AuthError) return null;
    throw error;
  }
}

async function sessionOfRefreshToken(ctx: AuthContext, token: string | undefined): Promise<string | null> {
  const parsed = token ? parseRefreshToken(token) : null;
  if (!parsed) return null;
  const session = await guardPort("DATABASE_FAILURE", () => ctx.sessions.getSession(parsed.sessionId));
  return session?.refreshTokenHash === parsed.hash ? session.id : null;
}
