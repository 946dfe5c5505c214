import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import {
  accountForAddress,
  discardNewAccount,
  findLink,
  linkedAccount,
  linkIdentity,
  providerReason,
} from "../identity/accounts.js";
import { redirectUriOf, relyingParty, type TakenAuthorization, takeAuthorization } from "../identity/flow.js";
import type { ProviderIdentity } from "../identity/relying-party.js";
import { type Call, type RequestContext, toUser, type User } from "../model.js";
import type { UserRecord } from "../ports/user-store.js";
import { assertNotLocked } from "../sessions/account-lock.js";
import { finishLogin, type SignedIn } from "../sessions/finish-login.js";
import { assertSsoNotRequired } from "../sso/required.js";
import { isValidEmail, normalizeEmail } from "../support/email-address.js";
import { describeDevice } from "../support/user-agent.js";
import { startChallenge, type TwoFactorChallenge } from "../two-factor/challenge.js";

/** What a provider's callback came to; each carries the checked path on `appOrigin` to return to. */
export type IdentityProviderCallbackResult =
  | { outcome: "signed-in"; returnTo: string; signedIn: SignedIn }
  | { outcome: "two-factor"; returnTo: string; purpose: "login" | "step-up"; challenge: TwoFactorChallenge }
  | { outcome: "stepped-up"; returnTo: string; stepUpToken: string }
  | { outcome: "linked"; returnTo: string; user: User };

/**
 * The provider's callback: the state is taken once (it must match the browser's state cookie),
 * the code exchanged with PKCE and the ID token checked (signature, issuer, audience, expiry,
 * nonce). Then, by what the authorize step started: a sign-in (the linked account, a new
 * password-less one, or an existing one whose address both sides have verified; the account's
 * 2FA still applies), a step-up of the session that asked, or a link to the signed-in account.
 */
export async function finishIdentityProviderSignIn(
  ctx: AuthContext,
  { request = {} }: Call,
  { provider, ...input }: { provider: string; query: string; state: string | undefined },
): Promise<IdentityProviderCallbackResult> {
  const party = relyingParty(ctx.relyingParties, provider);
  const params = new URLSearchParams(input.query);
  const state = params.get("state") ?? undefined;
  const taken = await takeAuthorization(ctx, provider, state, input.state);
  const callbackUrl = new URL(redirectUriOf(ctx.options, provider));
  callbackUrl.search = params.toString();
  let identity: ProviderIdentity;
  try {
    identity = await party.exchange({
      callbackUrl,
      state: state ?? "",
      codeVerifier: taken.codeVerifier,
      nonce: taken.nonce,
      fresh: taken.mode === "step-up",
    });
  } catch (error) {
    const code = error instanceof AuthError ? error.code : "INTERNAL_ERROR";
    ctx.logger.warn(
      { event: "identity_provider.rejected", provider, code, err: String((error as Error).cause ?? error) },
      "identity provider callback failed",
    );
    ctx.events.emit("login.failed", {
      ...request,
      userId: taken.userId || null,
      reason: `${providerReason(provider)}:${code === "IDENTITY_PROVIDER_FAILURE" ? "unreachable" : "rejected"}`,
    });
    throw error;
  }
  const { returnTo } = taken;
  const locale = request.locale ?? ctx.translator.defaultLocale;

  if (taken.mode === "sign-in") {
    const { user, registered } = await accountFor(ctx, provider, identity, request);
    assertNotLocked(user);
    await assertSsoNotRequired(ctx, user, request).catch(async (error: unknown) => {
      // Refused at its first sign-in (its domain signs in through SSO): the account goes again.
      if (registered) await discardNewAccount(ctx, user, provider);
      throw error;
    });
    if (user.twoFactor.methods.length > 0) {
      const device = describeDevice(undefined, request.userAgent);
      const challenge = await startChallenge(ctx, user, { kind: "login", ...device }, locale);
      return { outcome: "two-factor", purpose: "login", challenge, returnTo };
    }
    const signedIn = await finishLogin(ctx, user, undefined, request, {
      reason: providerReason(provider),
      registered,
    });
    return { outcome: "signed-in", signedIn, returnTo };
  }

  const { user, sessionId } = await startedBy(ctx, taken);
  const linked = await findLink(ctx, identity);
  if (taken.mode === "step-up") {
    if (!linked || linked.userId !== user.id || linked.provider !== provider)
      throw new AuthError("IDENTITY_PROVIDER_MISMATCH");
    if (user.twoFactor.methods.length > 0) {
      const challenge = await startChallenge(ctx, user, { kind: "step-up", sessionId }, locale);
      return { outcome: "two-factor", purpose: "step-up", challenge, returnTo };
    }
    return { outcome: "stepped-up", stepUpToken: await ctx.stepUpTokens.sign(user.id, sessionId), returnTo };
  }
  if (linked) throw new AuthError("IDENTITY_PROVIDER_ALREADY_LINKED");
  return {
    outcome: "linked",
    user: toUser(await linkIdentity(ctx, user, provider, identity, request)),
    returnTo,
  };
}

/** The account and live session that started a step-up or link; `AUTHENTICATION_REQUIRED` when gone. */
async function startedBy(
  ctx: AuthContext,
  taken: TakenAuthorization,
): Promise<{ user: UserRecord; sessionId: string }> {
  const { sessionId } = taken;
  const session = sessionId
    ? await guardPort("DATABASE_FAILURE", () => ctx.sessions.getSession(sessionId))
    : null;
  if (!session || !sessionId || session.userId !== taken.userId)
    throw new AuthError("AUTHENTICATION_REQUIRED");
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(taken.userId));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  return { user, sessionId };
}

/**
 * The account this identity signs in to, matched by issuer and subject only. A first sign-in
 * needs an address the provider has verified: it creates a password-less account, or links to
 * the account of that address when the account's address is verified too
 * (`IDENTITY_PROVIDER_ACCOUNT_EXISTS` otherwise: sign in and link from the settings).
 * `registered`: the account was created here (a sign-up, which makes the browser known).
 */
async function accountFor(
  ctx: AuthContext,
  provider: string,
  identity: ProviderIdentity,
  request: RequestContext,
): Promise<{ user: UserRecord; registered: boolean }> {
  const linked = await linkedAccount(ctx, identity);
  if (linked) return { user: linked, registered: false };
  const email = identity.email === null ? "" : normalizeEmail(identity.email);
  if (!identity.emailVerified || !isValidEmail(email))
    throw new AuthError("IDENTITY_PROVIDER_EMAIL_NOT_VERIFIED");
  return accountForAddress(ctx, { email, provider, identity, reason: providerReason(provider) }, request);
}
