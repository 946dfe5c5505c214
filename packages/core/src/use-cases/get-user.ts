import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import { type AdminUserDetail, toAdminUser } from "../model.js";
import type { Acting } from "../sessions/admin-actor.js";
import { liveSessions, sessionInfo } from "../sessions/session-lifecycle.js";
import { adminUserInput, parseInput } from "../validation.js";

/**
 * One user for the back office: the account and its state (lock, required password change, last
 * sign-in), live sessions (most recently active first, impersonations marked), linked identity
 * providers, second factors and passkeys. `USER_NOT_FOUND` for an unknown id.
 */
export async function getUser(ctx: AuthContext, acting: Acting, userId: string): Promise<AdminUserDetail> {
  const { actor } = acting;
  const { userId: id } = parseInput(adminUserInput, { userId });
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(id));
  if (!user) throw new AuthError("USER_NOT_FOUND");
  const [sessions, identities, passkeys] = await Promise.all([
    liveSessions(ctx, id),
    identitiesOf(ctx, id),
    listPasskeysOf(ctx, id),
  ]);
  ctx.events.emit("admin.user_viewed", { ...acting.request, userId: id, actor });
  return {
    user: toAdminUser(user),
    sessions: sessions.map(({ impersonatedBy, ...session }) => {
      const { current: _current, ...info } = sessionInfo(session, undefined);
      return { ...info, impersonatedBy: impersonatedBy ?? null };
    }),
    identities: identities.map((identity) => ({
      provider: identity.provider,
      email: identity.email,
      linkedAt: new Date(identity.createdAt).toISOString(),
    })),
    twoFactorMethods: [...user.twoFactor.methods],
    passkeys,
  };
}

/** The user's identity-provider links; none without an identity store. */
async function identitiesOf(ctx: AuthContext, userId: string) {
  const { identities } = ctx;
  return identities ? guardPort("DATABASE_FAILURE", () => identities.listByUser(userId)) : [];
}

/** The user's passkeys (names and times, never a key); none without a passkey store. */
async function listPasskeysOf(ctx: AuthContext, userId: string): Promise<AdminUserDetail["passkeys"]> {
  const { passkeys } = ctx;
  if (!passkeys) return [];
  const records = await guardPort("DATABASE_FAILURE", () => passkeys.listByUser(userId));
  return records.map((passkey) => ({
    id: passkey.id,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt).toISOString(),
  }));
}
