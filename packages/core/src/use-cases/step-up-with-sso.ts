import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { findLink } from "../identity/accounts.js";
import type { Call } from "../model.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import { ssoIssuer, ssoStoreOf } from "../sso/connections.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";

/** What a step-up through a connection came to: the step-up token, or the account's 2FA first. */
export type SsoStepUpResult =
  | { outcome: "stepped-up"; stepUpToken: string }
  | { outcome: "two-factor"; purpose: "step-up"; challenge: TwoFactorChallenge };

/**
 * A step-up of the session `sessionId` through the connection its account signs in with (an
 * account SSO made has no password of its own): the plugin asked the identity provider for a
 * fresh login (SAML's ForceAuthn, OpenID Connect's `prompt=login`) and checked the answer. The
 * identity must be the one linked to `userId` through this connection
 * (`IDENTITY_PROVIDER_MISMATCH` otherwise: someone else's login at the provider steps up
 * nobody), and the session that asked must still be that account's (`AUTHENTICATION_REQUIRED`).
 * The account's own 2FA still applies, as for any step-up.
 */
export async function stepUpWithSso(
  ctx: AuthContext,
  { request = {} }: Call,
  input: {
    connectionId: string;
    /** Who the identity provider says logged in anew (`SsoIdentity`). */
    identity: { subject: string; email: string | null; name: string | null };
    userId: string;
    sessionId: string;
  },
): Promise<SsoStepUpResult> {
  const store = ssoStoreOf(ctx);
  const connection = await guardPort("DATABASE_FAILURE", () => store.findSsoConnection(input.connectionId));
  if (connection === null) throw new AuthError("NOT_FOUND");
  const link = await findLink(ctx, {
    issuer: ssoIssuer(connection.id),
    subject: input.identity.subject,
    email: input.identity.email,
    emailVerified: true,
    name: input.identity.name,
  });
  if (link === null || link.userId !== input.userId) {
    ctx.events.emit("step_up.failed", { ...request, userId: input.userId, sessionId: input.sessionId });
    throw new AuthError("IDENTITY_PROVIDER_MISMATCH");
  }
  const session = await guardPort("DATABASE_FAILURE", () => ctx.sessions.getSession(input.sessionId));
  if (session === null || session.userId !== input.userId) throw new AuthError("AUTHENTICATION_REQUIRED");
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(input.userId));
  if (user === null) throw new AuthError("USER_NOT_FOUND");
  assertNotLocked(user);
  if (user.twoFactor.methods.length > 0) {
    const locale = request.locale ?? ctx.translator.defaultLocale;
    const challenge = await startChallenge(
      ctx,
      user,
      { kind: "step-up", sessionId: input.sessionId },
      locale,
    );
    return { outcome: "two-factor", purpose: "step-up", challenge };
  }
  return { outcome: "stepped-up", stepUpToken: await ctx.stepUpTokens.sign(user.id, input.sessionId) };
}
