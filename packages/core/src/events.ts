import type { Clock } from "./ports/clock.js";
import type { Logger } from "./ports/logger.js";

/**
 * Every security event type, in one table, each with whether the user it names sees it in their
 * activity (`GET /activity`). Out of the activity: `session.created` (the same sign-in as
 * `login.succeeded`), `user.deleted` (the activity goes with the account), `ip.limited`, the back
 * office's reads and the changes of webhook endpoints. A new type takes a decision here.
 */
const SECURITY_EVENTS = {
  "login.succeeded": true,
  "login.failed": true,
  "login.throttled": true,
  "two_factor.failed": true,
  "two_factor.throttled": true,
  "step_up.failed": true,
  "password_reset.requested": true,
  "password_reset.completed": true,
  "refresh_token.reused": true,
  "session.created": false,
  "session.revoked": true,
  "ip.limited": false,
  "user.created": true,
  "user.deleted": false,
  "password.set": true,
  "email.verified": true,
  "identity.linked": true,
  "identity.unlinked": true,
  "two_factor.enabled": true,
  "two_factor.disabled": true,
  "email_sign_in.requested": true,
  "password.changed": true,
  "email_change.requested": true,
  "email.changed": true,
  "account.exported": true,
  "admin.users_listed": false,
  "admin.user_viewed": false,
  "user.locked": true,
  "user.unlocked": true,
  "user.deprovisioned": true,
  "admin.sessions_revoked": true,
  "password_change.required": true,
  "password_change.completed": true,
  "impersonation.started": true,
  "passkey.added": true,
  "passkey.renamed": true,
  "passkey.removed": true,
  "passkey.failed": true,
  "organization.created": true,
  "organization.updated": true,
  "organization.deleted": true,
  "member.invited": true,
  "member.joined": true,
  "member.role_changed": true,
  "member.removed": true,
  "invitation.revoked": true,
  "invitation.declined": true,
  "role.created": true,
  "role.updated": true,
  "role.deleted": true,
  "admin.organizations_listed": false,
  "api_key.created": true,
  "api_key.deleted": true,
  "webhook.created": false,
  "webhook.updated": false,
  "webhook.secret_rotated": false,
  "webhook.deleted": false,
  "webhook.disabled": false,
} as const satisfies Record<string, boolean>;

/** What happened; the `onEvent` hook and the log line say it with this name. */
export type SecurityEventType = keyof typeof SECURITY_EVENTS;

/**
 * Every security event type: the code that must know the names at run time (the events a webhook
 * endpoint may ask for) reads this list.
 */
export const SECURITY_EVENT_TYPES = Object.keys(SECURITY_EVENTS) as readonly SecurityEventType[];

/** Whether a user sees events of `type` in their activity (`SECURITY_EVENTS`). */
export const shownInActivity = (type: SecurityEventType): boolean => SECURITY_EVENTS[type];

/** A security event (security.md J2). Never carries a password, hash, token, code or secret. */
export interface SecurityEvent {
  type: SecurityEventType;
  /** Milliseconds since the Unix epoch, from the configured clock. */
  time: number;
  /** The account concerned; null when none is known (or telling it would leak, e.g. unknown address). */
  userId: string | null;
  /** The session concerned, for session events and sign-ins. */
  sessionId: string | null;
  /** The client IP as resolved under `trustProxy`; null when the caller gave none. */
  ip: string | null;
  /** The request's User-Agent, control characters replaced, at most 200 characters. */
  userAgent: string | null;
  /**
   * Why, for failures and limits: e.g. `wrong_password`, `unknown_email`, `no_password`,
   * `address`, `account`, `ip:failedLogins`, `logout`, `revoked_by_user`, `password_reset`; for
   * sign-ins through an identity provider and for `identity.*` events, `oidc:<provider>`; for a
   * sign-in finished with a recovery code, `recovery_code`; for a sign-in through
   * `sessions.create`, `api` (a password sign-in has none; every sign-in emits `login.succeeded`
   * and `session.created` with the same reason); for `user.created`, `register`, `admin` or
   * `oidc:<provider>`; for `email.verified`, `link` or `admin`; for `two_factor.enabled` and
   * `two_factor.disabled` (a method turned on or off by the user), the method (`totp`, `email`).
   * A sign-in by an emailed link or code has `email` (`login.succeeded`, `session.created`); its
   * failures `email_link` or `email_code` (`login.failed`, with `unknown_email` for an address
   * without an account), and `email.verified` after it `email_sign_in`.
   * `two_factor.disabled` (a method turned on or off by the user), the method (`totp`, `email`);
   * for a passkey sign-in, `passkey`; for a refused passkey ceremony (`passkey.failed` of a
   * registration, `login.failed` of a sign-in, `step_up.failed` of a step-up), `passkey:<why>`
   * (`origin`, `rp_id`, `user_verification`, `counter`, `signature`, `challenge_unknown`,
   * `challenge_expired`, `other_browser`, `unknown_credential`, `invalid`). For `webhook.disabled`
   * (the delivery worker turned an endpoint off), `gone` (its receiver answered 410) or `failing`
   * (a message failed for the whole back-off).
   */
  reason: string | null;
  /**
   * For the back office's events (`admin.*`, `user.locked`, `user.unlocked`,
   * `password_change.required`, `impersonation.started`, `login.succeeded`/`session.created`
   * of an impersonation, and its end, `session.revoked` with reason `impersonation_ended`): who acted, the admin's user id when the admin routes (or a host call with
   * the admin's principal) did it, else the `actor` the host named in the call, else `"host"`.
   * Absent from every other event.
   */
  actor?: string;
  /**
   * For an organization's events (`organization.*`, `member.*`, `invitation.*`, `role.*`, and
   * `webhook.*` of its endpoints): the organization. `userId` is the member concerned (the one invited, joined, changed or removed;
   * the acting member for the organization's and its roles' own changes, and for an invitation
   * to an address), and `actor` the user id of who did it. Absent from every other event.
   */
  organizationId?: string;
  /**
   * For a sign-in (`login.succeeded`, `session.created`): the new session's browser and OS, as
   * the client stated them in the sign-in's `session`, else as its User-Agent shows. Absent from
   * every other event.
   */
  device?: { browser: string | null; os: string | null };
  /**
   * Who acted through the call, where the core knows more than `actor` says: `host` (a trusted
   * `auth.host.*` operation; `actorId` the call's `actor`, null when it named none), `admin` (the
   * back office, `auth.admin.*`; the admin's user id), `impersonator` (a call of an impersonated
   * session; the admin who started it), `api_key` (a call with an API key's principal; the key's
   * id), `scim` (an SSO connection's directory provisioning through SCIM; the connection's id).
   * Absent when the account itself, or nobody, acted. The audit log's actor (docs/audit-log.md).
   */
  actorType?: SecurityActorType;
  /** With `actorType`: who, as said there; null for a host call that named no actor. */
  actorId?: string | null;
}

/** Who acted through a call when it was not the account itself (`SecurityEvent.actorType`). */
export type SecurityActorType = "host" | "admin" | "impersonator" | "api_key" | "scim";

export type SecurityEventInput = Partial<Omit<SecurityEvent, "type" | "time">>;

export interface SecurityEvents {
  emit(type: SecurityEventType, details: SecurityEventInput): void;
}

/** Strips CR/LF and other control characters from a value before it goes into a log line (security.md J3). */
export function logSafe(value: string | null | undefined): string | null {
  return value == null ? null : value.replace(/[\p{Cc}\p{Cf}]/gu, "?").slice(0, 200);
}

const WARN: ReadonlySet<SecurityEventType> = new Set([
  "login.throttled",
  "two_factor.throttled",
  "refresh_token.reused",
  "ip.limited",
]);

/**
 * Security events go to the logger (throttling and token reuse at `warn`, the rest at `info`)
 * and to the host's `onEvent` hook, which is not awaited and whose failures are only logged.
 */
export function createSecurityEvents(options: {
  onEvent: ((event: SecurityEvent) => unknown) | undefined;
  logger: Logger;
  clock: Clock;
  /** Sees every event first (the user's activity); must not throw or wait. */
  observe?: (event: SecurityEvent) => void;
}): SecurityEvents {
  const { onEvent, logger, clock, observe } = options;
  const hookFailed = (error: unknown) =>
    logger.error({ event: "on_event.failed", err: String(error) }, "the onEvent hook failed");
  return {
    emit(type, details) {
      const event: SecurityEvent = {
        type,
        time: clock.now(),
        userId: details.userId ?? null,
        sessionId: details.sessionId ?? null,
        ip: details.ip ?? null,
        userAgent: logSafe(details.userAgent),
        reason: details.reason ?? null,
        ...(details.actor !== undefined ? { actor: details.actor } : {}),
        ...(details.organizationId !== undefined ? { organizationId: details.organizationId } : {}),
        ...(details.device !== undefined ? { device: details.device } : {}),
        ...(details.actorType !== undefined
          ? { actorType: details.actorType, actorId: details.actorId ?? null }
          : {}),
      };
      const { type: _type, time: _time, ...fields } = event;
      (WARN.has(type) ? logger.warn : logger.info).call(logger, { event: type, ...fields }, type);
      observe?.(event);
      if (!onEvent) return;
      try {
        Promise.resolve(onEvent(event)).catch(hookFailed);
      } catch (error) {
        hookFailed(error);
      }
    },
  };
}

/**
 * `ctx` whose events name `actorType` and `actorId` as who acted (unless an event names its own):
 * for the calls of the back office, the host, an impersonated session or an API key. A copy of
 * `ctx`; the original is untouched.
 */
export function withActor<C extends { events: SecurityEvents }>(
  ctx: C,
  actorType: SecurityActorType,
  actorId: string | null,
): C {
  const { events } = ctx;
  return {
    ...ctx,
    events: { emit: (type, details) => events.emit(type, { actorType, actorId, ...details }) },
  };
}
