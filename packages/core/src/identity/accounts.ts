import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents } from "../events.js";
import type { RequestContext } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { IdentityRecord, IdentityStore } from "../ports/identity-store.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import { createUserRecord, providedName } from "../sessions/new-user.js";
import { normalizeEmail } from "../support/email-address.js";
import type { ProviderIdentity } from "./relying-party.js";

/** What linking needs: both stores, the time and the events. */
export interface LinkDeps {
  users: UserStore;
  identities: IdentityStore | undefined;
  clock: Clock;
  events: SecurityEvents;
}

/** The identity store; `NOT_FOUND` without one (no provider can be configured then). */
export function identityStoreOf(deps: { identities: IdentityStore | undefined }): IdentityStore {
  if (!deps.identities) throw new AuthError("NOT_FOUND");
  return deps.identities;
}

/** The event reason of everything an identity provider did: `oidc:<provider>`. */
export const providerReason = (provider: string) => `oidc:${provider}`;

/** The stored link of the identity (matched by issuer and subject), or null. */
export async function findLink(
  deps: Pick<LinkDeps, "identities">,
  identity: ProviderIdentity,
): Promise<IdentityRecord | null> {
  const identities = identityStoreOf(deps);
  return guardPort("DATABASE_FAILURE", () => identities.findBySubject(identity.issuer, identity.subject));
}

/** The providers an account signs in with: its `identityProviders` and its stored links. */
export async function linkedProviders(
  deps: Pick<LinkDeps, "identities">,
  user: UserRecord,
): Promise<string[]> {
  const identities = identityStoreOf(deps);
  const links = await guardPort("DATABASE_FAILURE", () => identities.listByUser(user.id));
  return [...new Set([...user.identityProviders, ...links.map((link) => link.provider)])];
}

/**
 * Links the identity to the account (atomic on issuer and subject, and on account and provider:
 * `IDENTITY_PROVIDER_ALREADY_LINKED` when either is taken) and adds the provider to the account's
 * `identityProviders`. Returns the updated account.
 */
export async function linkIdentity(
  deps: LinkDeps,
  user: UserRecord,
  provider: string,
  identity: ProviderIdentity,
  request: RequestContext,
): Promise<UserRecord> {
  const identities = identityStoreOf(deps);
  const stored = await guardPort("DATABASE_FAILURE", () =>
    identities.link({
      userId: user.id,
      provider,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email === null ? null : normalizeEmail(identity.email),
      createdAt: deps.clock.now(),
    }),
  );
  if (!stored) throw new AuthError("IDENTITY_PROVIDER_ALREADY_LINKED");
  const identityProviders = [...new Set([...user.identityProviders, provider])];
  const updated = await guardPort("DATABASE_FAILURE", () =>
    deps.users.update(user.id, { identityProviders }),
  );
  if (!updated) throw new AuthError("USER_NOT_FOUND");
  deps.events.emit("identity.linked", { ...request, userId: user.id, reason: providerReason(provider) });
  return updated;
}

/**
 * The account linked to the identity (matched by issuer and subject), or null. A link whose
 * account was deleted without it is removed: the identity is free again.
 */
export async function linkedAccount(deps: LinkDeps, identity: ProviderIdentity): Promise<UserRecord | null> {
  const linked = await findLink(deps, identity);
  if (!linked) return null;
  const user = await guardPort("DATABASE_FAILURE", () => deps.users.findById(linked.userId));
  if (user) return user;
  await guardPort("DATABASE_FAILURE", () => identityStoreOf(deps).unlink(linked.userId, linked.provider));
  return null;
}

/**
 * A first sign-in's account for a checked `email` (normalized): the account of that address,
 * linked now, when its address is verified too (`IDENTITY_PROVIDER_ACCOUNT_EXISTS` while it is
 * not: whoever registered it without proving it gains nothing); else a new password-less one with
 * the address verified (`user.created` with `reason`), linked, and deleted again if the link
 * fails. `registered`: the account was created here.
 */
export async function accountForAddress(
  deps: LinkDeps & Parameters<typeof createUserRecord>[0],
  {
    email,
    provider,
    identity,
    reason,
  }: { email: string; provider: string; identity: ProviderIdentity; reason: string },
  request: RequestContext,
): Promise<{ user: UserRecord; registered: boolean }> {
  const existing = await guardPort("DATABASE_FAILURE", () => deps.users.findByEmail(email));
  if (existing) {
    if (!existing.emailVerified) throw new AuthError("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
    return { user: await linkIdentity(deps, existing, provider, identity, request), registered: false };
  }
  const created = await createUserRecord(deps, {
    email,
    emailVerified: true,
    name: providedName(identity.name),
    passwordHash: null,
  });
  // Created concurrently (two first sign-ins at once, or another provider's): the other has it.
  if (!created) throw new AuthError("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
  deps.events.emit("user.created", { ...request, userId: created.id, reason });
  try {
    return { user: await linkIdentity(deps, created, provider, identity, request), registered: true };
  } catch (error) {
    await deps.users.delete(created.id).catch(() => false);
    throw error;
  }
}

/**
 * Removes an account `accountForAddress` has just created (`registered`) when its first sign-in is
 * refused afterwards: its link and the account, best effort (a failure leaves a password-less
 * account nobody can use but through that provider, and is logged by the caller's refusal).
 */
export async function discardNewAccount(deps: LinkDeps, user: UserRecord, provider: string): Promise<void> {
  await identityStoreOf(deps)
    .unlink(user.id, provider)
    .catch(() => false);
  await deps.users.delete(user.id).catch(() => false);
}
