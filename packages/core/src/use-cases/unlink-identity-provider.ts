import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { identityStoreOf, providerReason } from "../identity/accounts.js";
import { type Call, toUser, type User } from "../model.js";
import { passkeyCount } from "../passkeys/sign-in-methods.js";
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";

/**
 * Removes a provider from the signed-in account (needs step-up). The last way to sign in (no
 * password, no passkey and one provider) cannot be removed: `IDENTITY_PROVIDER_LAST_METHOD`, also when
 * unlinks run concurrently (the identity store removes the link only when the account keeps
 * another one, atomically). `NOT_FOUND` when the account does not have this provider.
 */
export async function unlinkIdentityProvider(ctx: AuthContext, call: Call, provider: string): Promise<User> {
  const principal = signedIn(call);
  const identities = identityStoreOf(ctx);
  const user = await requireStepUp(ctx, call);
  const links = await guardPort("DATABASE_FAILURE", () => identities.listByUser(user.id));
  const stored = new Set(links.map((link) => link.provider));
  if (!stored.has(provider) && !user.identityProviders.includes(provider)) throw new AuthError("NOT_FOUND");
  // The ways to sign in besides the stored links, which the store cannot count: the password,
  // passkeys, and providers the account names without a stored link (e.g. imported accounts).
  const otherMethods =
    (user.passwordHash === null ? 0 : 1) +
    (await passkeyCount(ctx, user.id)) +
    user.identityProviders.filter((name) => name !== provider && !stored.has(name)).length;
  if (stored.has(provider)) {
    const keepAtLeast = otherMethods > 0 ? 0 : 1;
    const removed = await guardPort("DATABASE_FAILURE", () =>
      identities.unlink(user.id, provider, { keepAtLeast }),
    );
    if (!removed) {
      const still = await guardPort("DATABASE_FAILURE", () => identities.listByUser(user.id));
      if (still.some((link) => link.provider === provider))
        throw new AuthError("IDENTITY_PROVIDER_LAST_METHOD");
      throw new AuthError("NOT_FOUND");
    }
  } else if (otherMethods === 0 && links.length === 0) {
    throw new AuthError("IDENTITY_PROVIDER_LAST_METHOD");
  }
  // Re-read: a concurrent unlink of another provider may have changed the list since.
  const current = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(user.id));
  if (!current) throw new AuthError("USER_NOT_FOUND");
  const updated = await guardPort("DATABASE_FAILURE", () =>
    ctx.users.update(user.id, {
      identityProviders: current.identityProviders.filter((name) => name !== provider),
    }),
  );
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  ctx.events.emit("identity.unlinked", {
    ...call.request,
    userId: user.id,
    sessionId: principal.sessionId,
    reason: providerReason(provider),
  });
  return toUser(updated);
}
