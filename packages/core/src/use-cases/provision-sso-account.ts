import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { createUserRecord, providedName } from "../sessions/new-user.js";
import { addressOfVerifiedDomain, ssoStoreOf } from "../sso/connections.js";
import { provisioningConnection } from "../sso/provisioning.js";

/**
 * The account a connection's directory (SCIM) provisions for `email` (`auth.sso.provisionAccount`):
 * only an address of a domain the connection's organization has verified
 * (`SSO_DOMAIN_NOT_VERIFIED` otherwise, an invalid address too); the existing account of that
 * address when its address is verified (`IDENTITY_PROVIDER_ACCOUNT_EXISTS` while it is not, as for
 * a first SSO sign-in: whoever registered it without proving it gains nothing), else a new
 * password-less account with the address verified (`user.created`, reason `sso:<connectionId>`).
 * The account signs in through the connection (or any method the host allows it); membership is
 * `setMemberRole`'s. Two calls at once for one new address give one account.
 */
export async function provisionSsoAccount(
  ctx: AuthContext,
  { request = {} }: Call,
  input: { connectionId: string; email: string; name: string | null },
): Promise<{ userId: string; created: boolean }> {
  const { connection, scim } = await provisioningConnection(ctx, input.connectionId);
  const email = await addressOfVerifiedDomain(ssoStoreOf(ctx), connection.organizationId, input.email);
  const existing = await existingAccount(ctx, email);
  if (existing !== null) return { userId: existing, created: false };
  const made = await createUserRecord(ctx, {
    email,
    emailVerified: true,
    name: providedName(input.name),
    passwordHash: null,
  });
  if (made === null) {
    // Created at the same moment by another call (the directory retried, or a sign-in): its account.
    const raced = await existingAccount(ctx, email);
    if (raced === null) throw new AuthError("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
    return { userId: raced, created: false };
  }
  scim.events.emit("user.created", { ...request, userId: made.id, reason: `sso:${connection.id}` });
  return { userId: made.id, created: true };
}

/** The id of the verified account of `email`, null when none; `IDENTITY_PROVIDER_ACCOUNT_EXISTS` while unverified. */
async function existingAccount(ctx: AuthContext, email: string): Promise<string | null> {
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findByEmail(email));
  if (user === null) return null;
  if (!user.emailVerified) throw new AuthError("IDENTITY_PROVIDER_ACCOUNT_EXISTS");
  return user.id;
}
