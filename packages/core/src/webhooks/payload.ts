import type { AuditActorType, AuditEntry } from "../ports/audit-log-store.js";
import type { WebhookEndpoint } from "../ports/webhook-store.js";

/** The JSON body of a webhook message: one audit entry. */
export interface WebhookPayload {
  /** The event type (`login.succeeded`, `member.role_changed`, …). */
  type: string;
  /** When the event happened (ISO 8601, UTC). */
  timestamp: string;
  data: {
    /** The audit entry's id (also the `webhook-id` header). */
    id: string;
    actorType: AuditActorType;
    actorId: string | null;
    userId: string | null;
    organizationId: string | null;
    sessionId: string | null;
    reason: string | null;
    ip: string | null;
    userAgent: string | null;
  };
}

/** The payload of `entry` (its chain fields, `seq` and hashes, stay out). */
export function webhookPayload(entry: AuditEntry): WebhookPayload {
  return {
    type: entry.type,
    timestamp: new Date(entry.at).toISOString(),
    data: {
      id: entry.id,
      actorType: entry.actorType,
      actorId: entry.actorId,
      userId: entry.userId,
      organizationId: entry.organizationId,
      sessionId: entry.sessionId,
      reason: entry.reason,
      ip: entry.ip,
      userAgent: entry.userAgent,
    },
  };
}

/** The body sent for `entry`: its payload as JSON. */
export function webhookBody(entry: AuditEntry): string {
  return JSON.stringify(webhookPayload(entry));
}

/**
 * Whether `endpoint` receives `entry`: its `events` name the type (or are `*`), and an
 * organization's endpoint gets only that organization's entries.
 */
export function endpointWants(
  endpoint: Pick<WebhookEndpoint, "events" | "organizationId">,
  entry: Pick<AuditEntry, "type" | "organizationId">,
): boolean {
  if (endpoint.organizationId !== null && entry.organizationId !== endpoint.organizationId) return false;
  return endpoint.events.includes("*") || endpoint.events.includes(entry.type);
}
