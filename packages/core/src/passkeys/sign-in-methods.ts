import { guardPort } from "../errors.js";
import type { IdentityStore } from "../ports/identity-store.js";
import type { PasskeyStore } from "../ports/passkey-store.js";
import type { UserRecord } from "../ports/user-store.js";

/**
 * The ways the account signs in besides its passkeys: the password, and its identity providers
 * (stored links and providers the record names, each counted once).
 */
export async function signInMethodsBesidesPasskeys(
  ctx: { identities: IdentityStore | undefined },
  user: UserRecord,
): Promise<number> {
  const identities = ctx.identities;
  const links = identities ? await guardPort("DATABASE_FAILURE", () => identities.listByUser(user.id)) : [];
  const providers = new Set([...user.identityProviders, ...links.map((link) => link.provider)]);
  return (user.passwordHash === null ? 0 : 1) + providers.size;
}

/** How many passkeys the account has (0 when passkeys are not configured). */
export async function passkeyCount(
  ctx: { passkeys: PasskeyStore | undefined },
  userId: string,
): Promise<number> {
  const store = ctx.passkeys;
  if (!store) return 0;
  return (await guardPort("DATABASE_FAILURE", () => store.listByUser(userId))).length;
}
