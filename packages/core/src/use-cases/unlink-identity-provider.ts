import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { identityStoreOf, linkedProviders, providerReason } from "../identity/accounts.js";
import { type Principal, type RequestContext, toUser, type User } from "../model.js";
import { requireStepUp } from "../two-factor/settings.js";

/**
 * Removes a provider from the signed-in account (needs step-up). The last way to sign in (no
 * password and one provider) cannot be removed: `IDENTITY_PROVIDER_LAST_METHOD`. `NOT_FOUND` when
 * the account does not have this provider.
 */
export async function unlinkIdentityProvider(
  ctx: AuthContext,
  principal: Principal,
  stepUpToken: string | undefined,
  provider: string,
  request: RequestContext = {},
): Promise<User> {
  const identities = identityStoreOf(ctx);
  const user = await requireStepUp(ctx, principal, stepUpToken);
  const providers = await linkedProviders(ctx, user);
  if (!providers.includes(provider)) throw new AuthError("NOT_FOUND");
  if (user.passwordHash === null && providers.length <= 1)
    throw new AuthError("IDENTITY_PROVIDER_LAST_METHOD");
  await guardPort("DATABASE_FAILURE", () => identities.unlink(user.id, provider));
  const updated = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(user.id, {
      identityProviders: user.identityProviders.filter((name) => name !== provider),
    }),
  );
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("identity.unlinked", {
    ...request,
    userId: user.id,
    sessionId: principal.sessionId,
    reason: providerReason(provider),
  });
  return toUser(updated);
}
