import type { Call } from "../model.js";
import type { SsoIdentity, SsoSignInResult } from "../use-cases/finish-sso-sign-in.js";
import type { SsoMemberGroups } from "../use-cases/set-sso-member-role.js";
import type { SsoStepUpResult } from "../use-cases/step-up-with-sso.js";

export type { SsoIdentity, SsoSignInResult } from "../use-cases/finish-sso-sign-in.js";
export type { SsoMemberGroups } from "../use-cases/set-sso-member-role.js";
export type { SsoStepUpResult } from "../use-cases/step-up-with-sso.js";

/**
 * Enterprise sign-in's steps that touch accounts, members and sessions (docs/sso.md), for the
 * routes of `@portcullis/sso`: the plugin checks the identity provider's answers, the core decides
 * who that lets in. Every method answers `NOT_FOUND` while the `sso` option is not set.
 */
export interface SsoApi {
  /** Whether the `sso` option is set. */
  readonly enabled: boolean;
  /**
   * The caller may manage the organization's enterprise sign-in: a signed-in member
   * (`ORGANIZATION_NOT_FOUND` for anyone else, as for no such organization) whose role grants
   * `sso:manage` (`PERMISSION_DENIED`), and with `stepUp` a live step-up token
   * (`STEP_UP_REQUIRED`); with `asAdmin`, the back office instead (`admin.authorize` and a step-up
   * token, `ADMIN_REQUIRED`). With `defaultRole`, that role must be the organization's and not
   * `owner` (`VALIDATION_FAILED`). Read now from the store; a store failure rejects, never grants.
   * @throws `USE_CASE_ERRORS.sso.authorize`'s codes (use-case-errors.ts)
   */
  authorize(
    call: Call,
    input: { organizationId: string; stepUp?: boolean; asAdmin?: boolean; defaultRole?: string },
  ): Promise<{ userId: string; role: string }>;
  /**
   * Signs in the user a connection's identity provider vouched for (the caller has checked the
   * answer completely and used it once): the linked account, else one of a domain the
   * organization has verified (linked, or created with the address verified), made a member with
   * the connection's default role; the account's 2FA still applies. Reads `call.request`.
   * @throws `USE_CASE_ERRORS.sso.signIn`'s codes (use-case-errors.ts)
   */
  signIn(call: Call, input: { connectionId: string; identity: SsoIdentity }): Promise<SsoSignInResult>;
  /**
   * Steps up the session `sessionId` of `userId` through a connection: the identity the plugin
   * checked (a fresh login it asked the provider for) must be the one linked to that account
   * through this connection (`IDENTITY_PROVIDER_MISMATCH`); the account's 2FA still applies.
   * @throws `USE_CASE_ERRORS.sso.stepUp`'s codes (use-case-errors.ts)
   */
  stepUp(
    call: Call,
    input: { connectionId: string; identity: SsoIdentity; userId: string; sessionId: string },
  ): Promise<SsoStepUpResult>;
  /**
   * Counts a sign-in started from the call's IP (`request.ip`) before the plugin stores its
   * request (`ipLimits.ssoSignInStarts`).
   * @throws `USE_CASE_ERRORS.sso.countStart`'s codes (use-case-errors.ts)
   */
  countStart(call: Call): Promise<void>;
  /**
   * The account a connection's directory (SCIM) provisions for `email`: only an address of a
   * domain the organization has verified; the existing account when its address is verified,
   * else a new password-less one with the address verified. Membership is `setMemberRole`'s.
   * @throws `USE_CASE_ERRORS.sso.provisionAccount`'s codes (use-case-errors.ts)
   */
  provisionAccount(
    call: Call,
    input: { connectionId: string; email: string; name: string | null },
  ): Promise<{ userId: string; created: boolean }>;
  /**
   * Makes the account a member of the connection's organization, its role decided by the
   * directory's groups (`groups`: the names of those the user is in; `left`: those it just left;
   * `restore`: the role it had when deactivated): see `setSsoMemberRole`. Never `owner`, and an
   * owner's membership stays as it is.
   * @throws `USE_CASE_ERRORS.sso.setMemberRole`'s codes (use-case-errors.ts)
   */
  setMemberRole(call: Call, input: SsoMemberGroups): Promise<{ role: string; previousRole: string | null }>;
  /**
   * The directory deactivated the account's user: its membership removed (not an owner's), every
   * session ended, its own API keys deleted, its OAuth grants ended (`user.deprovisioned`).
   * @throws `USE_CASE_ERRORS.sso.suspendMember`'s codes (use-case-errors.ts)
   */
  suspendMember(
    call: Call,
    input: { connectionId: string; userId: string },
  ): Promise<{ suspendedRole: string | null; sessionsEnded: number }>;
  /** The plugin's routes, made with the HTTP layer's kit (the HTTP layer calls it). */
  routes(kit: never): readonly unknown[];
}
