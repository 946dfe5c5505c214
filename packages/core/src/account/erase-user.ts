import { emailCooldownKey } from "../emails/send-with-cooldown.js";
import { AuthError, guardPort } from "../errors.js";
import type { Limits } from "../limits/limits.js";
import { EMAIL_KINDS } from "../options/email-kinds.js";
import type { ActivityStore } from "../ports/activity-store.js";
import type { ApiKeyStore } from "../ports/api-key-store.js";
import type { Clock } from "../ports/clock.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { IdentityStore } from "../ports/identity-store.js";
import type { OrganizationStore } from "../ports/organization-store.js";
import type { PasskeyStore } from "../ports/passkey-store.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import type { UserRecord, UserStore } from "../ports/user-store.js";
import type { WebhookStore } from "../ports/webhook-store.js";
import { endUserSessions, type SessionLifecycleDeps } from "../sessions/session-lifecycle.js";
import {
  CHALLENGE_PURPOSE,
  EMAIL_CHANGE_PURPOSE,
  EMAIL_CODE_PURPOSE,
  EMAIL_SIGN_IN_PURPOSE,
  EMAIL_VERIFICATION_PURPOSE,
  EMAIL_VERIFICATION_USED_PURPOSE,
  OAUTH_STATE_PURPOSE,
  PASSKEY_CHALLENGE_PURPOSE,
  PASSWORD_CHANGE_PURPOSE,
  PASSWORD_RESET_PURPOSE,
  TOTP_SETUP_PURPOSE,
} from "../tokens/purposes.js";
import { totpStepKey } from "../two-factor/check.js";
import { totpStepsRemembered } from "../two-factor/totp.js";
import { deleteOrganizationEndpoints } from "../webhooks/manage.js";

/**
 * Every purpose of a single-use token that names a user: an account's deletion removes the
 * user's tokens of each. A new purpose that stores `userId` belongs here.
 */
export const USER_TOKEN_PURPOSES: readonly string[] = [
  PASSWORD_RESET_PURPOSE,
  EMAIL_VERIFICATION_PURPOSE,
  EMAIL_VERIFICATION_USED_PURPOSE,
  CHALLENGE_PURPOSE,
  EMAIL_CODE_PURPOSE,
  TOTP_SETUP_PURPOSE,
  OAUTH_STATE_PURPOSE,
  EMAIL_CHANGE_PURPOSE,
  PASSKEY_CHALLENGE_PURPOSE,
  EMAIL_SIGN_IN_PURPOSE,
  PASSWORD_CHANGE_PURPOSE,
];

/** Every store that keeps something about a user, and the throttles. */
export interface EraseDeps extends SessionLifecycleDeps {
  users: UserStore;
  singleUseTokens: SingleUseTokenStore;
  cooldowns: CooldownStore;
  identities: IdentityStore | undefined;
  passkeys: PasskeyStore | undefined;
  organizations: OrganizationStore | undefined;
  apiKeys: ApiKeyStore | undefined;
  /** `stores.webhooks`: the endpoints of the organizations that go with their only member. */
  options: { stores: { webhooks?: WebhookStore | undefined } };
  activity: { store: ActivityStore | undefined };
  limits: Pick<Limits, "clearPassword" | "clearTwoFactor" | "clearEmailSignInCodes">;
  clock: Clock;
}

/**
 * Removes a user and everything stored about them, in every store: sessions (their refresh and
 * access tokens stop working at once; the allowlist entries go with them), single-use tokens of
 * every purpose (also emailed sign-ins and required password changes), the email cooldowns of the
 * address, the TOTP time steps its codes claimed, the address's and the account's throttle counters
 * (also the emailed sign-in's wrong codes), identity-provider links, passkeys, the user's own API
 * keys (right after the sessions: nothing of the account works while the rest goes), activity, and the user record. Each step may be repeated, so
 * a deletion interrupted by a store failure is finished by a retry. The sessions are ended first
 * (nothing of the account works while the rest goes) and once more after the record is gone: a
 * sign-in that checked the password meanwhile wrote its session after the first pass. First of
 * all the user leaves their organizations (`leaveOrganizations`: `LAST_OWNER`, nothing erased,
 * while they are the only owner of one with other members). Returns
 * false when the record was already gone (a concurrent deletion). Emits nothing: the caller says
 * why the account went.
 *
 * Not reached: the budgets of known browsers (`throttle:password-device:<userId>:<deviceId>` in
 * the cooldown store), which no store can list by user; they end with their window
 * (`loginThrottle.windowSeconds`, docs/security.md "Account deletion").
 */
export async function eraseUser(ctx: EraseDeps, user: UserRecord): Promise<boolean> {
  const id = user.id;
  await leaveOrganizations(ctx, id);
  await endUserSessions(ctx, id);
  const apiKeys = ctx.apiKeys;
  if (apiKeys) await guardPort("DATABASE_FAILURE", () => apiKeys.deleteUserApiKeys(id));
  for (const purpose of USER_TOKEN_PURPOSES) {
    await guardPort("DATABASE_FAILURE", () => ctx.singleUseTokens.deleteUserTokens(id, purpose));
  }
  for (const kind of EMAIL_KINDS) {
    await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () =>
      ctx.cooldowns.release(emailCooldownKey(kind, user.email)),
    );
  }
  if (ctx.identities) {
    const identities = ctx.identities;
    const links = await guardPort("DATABASE_FAILURE", () => identities.listByUser(id));
    for (const link of links) await guardPort("DATABASE_FAILURE", () => identities.unlink(id, link.provider));
  }
  const passkeys = ctx.passkeys;
  if (passkeys) await guardPort("DATABASE_FAILURE", () => passkeys.deleteAllForUser(id));
  const activity = ctx.activity.store;
  if (activity) await guardPort("DATABASE_FAILURE", () => activity.deleteUserActivity(id));
  // The TOTP time steps the account's codes claimed (replay records keyed by its id).
  for (const step of totpStepsRemembered(ctx.clock.now())) {
    await guardPort("EMAIL_COOLDOWN_CACHE_FAILURE", () => ctx.cooldowns.release(totpStepKey(id, step)));
  }
  await ctx.limits.clearPassword(user.email);
  await ctx.limits.clearTwoFactor(id);
  await ctx.limits.clearEmailSignInCodes(user.email);
  const removed = await guardPort("DATABASE_FAILURE", () => ctx.users.delete(id));
  await endUserSessions(ctx, id);
  return removed;
}

/**
 * The user's memberships go, with each organization they were the only member of, in one atomic
 * step of the store (then those organizations' API keys and webhook endpoints); `LAST_OWNER` (and
 * nothing removed) while the user is the only owner of an organization that has other members:
 * they hand it over or delete it first.
 */
async function leaveOrganizations(
  ctx: Pick<EraseDeps, "organizations" | "apiKeys" | "options">,
  userId: string,
): Promise<void> {
  const store = ctx.organizations;
  if (store === undefined) return;
  const { blockedBy, deletedOrganizations } = await guardPort("DATABASE_FAILURE", () =>
    store.removeUser(userId),
  );
  if (blockedBy.length > 0) throw new AuthError("LAST_OWNER");
  // The keys and webhook endpoints of the organizations that went with their only member.
  const apiKeys = ctx.apiKeys;
  for (const organizationId of deletedOrganizations) {
    if (apiKeys) await guardPort("DATABASE_FAILURE", () => apiKeys.deleteOrganizationApiKeys(organizationId));
    await deleteOrganizationEndpoints(ctx.options.stores.webhooks, organizationId);
  }
}
