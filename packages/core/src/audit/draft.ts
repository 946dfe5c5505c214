import type { SecurityEvent, SecurityEventType } from "../events.js";
import type { AuditActorType, AuditDraft } from "../ports/audit-log-store.js";
import { randomHex } from "../tokens/random.js";

/**
 * Events Portcullis itself raises when a limit or a check trips, whoever caused it: their actor
 * is `system`.
 */
const SYSTEM_EVENTS: ReadonlySet<SecurityEventType> = new Set<SecurityEventType>([
  "login.throttled",
  "two_factor.throttled",
  "ip.limited",
  "refresh_token.reused",
  "webhook.disabled",
]);

/** Who acted, as an audit entry says it. */
export interface AuditActor {
  actorType: AuditActorType;
  actorId: string | null;
}

/**
 * Who acted in `event`, every event type included:
 * - what the core marked on the call (`event.actorType`: the back office, a host operation, an
 *   impersonated session, an API key) wins;
 * - limits and checks that trip (`login.throttled`, `two_factor.throttled`, `ip.limited`,
 *   `refresh_token.reused`) and the webhook worker turning an endpoint off (`webhook.disabled`)
 *   are `system`;
 * - an event naming an `actor`: `"host"` is the host (no id); the end of an impersonation
 *   (`reason: "impersonation_ended"`) its impersonator; an organization's or an API key's event
 *   the member who acted (`user`); any other (a back-office event) the admin;
 * - anything else the account itself (`user`, `actorId` its `userId`: null when none is known,
 *   e.g. a failed sign-in to an unknown address).
 */
export function auditActor(event: SecurityEvent): AuditActor {
  if (event.actorType !== undefined) return { actorType: event.actorType, actorId: event.actorId ?? null };
  if (SYSTEM_EVENTS.has(event.type)) return { actorType: "system", actorId: null };
  const { actor } = event;
  if (actor !== undefined) {
    if (actor === "host") return { actorType: "host", actorId: null };
    if (event.reason === "impersonation_ended") return { actorType: "impersonator", actorId: actor };
    if (event.organizationId !== undefined || event.type.startsWith("api_key."))
      return { actorType: "user", actorId: actor };
    return { actorType: "admin", actorId: actor };
  }
  return { actorType: "user", actorId: event.userId };
}

/** A new entry id: 128 random bits, 32 lowercase hex. */
export const newAuditId = (): string => randomHex(16);

/** The audit draft of `event` (every event type goes in), with the entry id `id`. */
export function auditDraft(event: SecurityEvent, id: string): AuditDraft {
  return {
    id,
    at: event.time,
    type: event.type,
    ...auditActor(event),
    userId: event.userId,
    organizationId: event.organizationId ?? null,
    sessionId: event.sessionId,
    ip: event.ip,
    userAgent: event.userAgent,
    reason: event.reason,
  };
}
