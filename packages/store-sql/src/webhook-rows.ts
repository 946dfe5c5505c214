import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointPatch,
  WebhookSecret,
} from "@portcullis/core";
import { toBoolean, toNumber } from "./context.js";

/**
 * A row of `<prefix>webhook_endpoints` (migration 0016): `events` and `secrets` are JSON arrays,
 * `enabled` is 0 or 1 (PostgreSQL: a boolean), times are milliseconds; bigints come back as
 * strings from PostgreSQL.
 */
export interface EndpointRow {
  id: string;
  organization_id: string | null;
  url: string;
  events: string;
  enabled: boolean | number;
  disabled_reason: string | null;
  secrets: string;
  created_by: string | null;
  created_at: number | string;
  cursor: number | string;
  lease_owner: string | null;
  lease_until: number | string | null;
}

/** A row of `<prefix>webhook_deliveries` (migration 0016). */
export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  entry_id: string;
  seq: number | string;
  type: string;
  status: string;
  attempts: number | string;
  created_at: number | string;
  last_attempt_at: number | string | null;
  last_status_code: number | string | null;
  last_error: string | null;
  next_attempt_at: number | string | null;
  redelivery: boolean | number;
}

const orNull = (value: number | string | null): number | null => (value === null ? null : toNumber(value));

/** The secrets as stored: only the port's two fields of each, in order. */
const secretsText = (secrets: WebhookSecret[]): string =>
  JSON.stringify(secrets.map(({ sealed, expiresAt }) => ({ sealed, expiresAt })));

/** A new endpoint's row, its lease free. */
export const endpointRow = (endpoint: WebhookEndpoint): EndpointRow => ({
  id: endpoint.id,
  organization_id: endpoint.organizationId,
  url: endpoint.url,
  events: JSON.stringify(endpoint.events),
  enabled: endpoint.enabled ? 1 : 0,
  disabled_reason: endpoint.disabledReason,
  secrets: secretsText(endpoint.secrets),
  created_by: endpoint.createdBy,
  created_at: endpoint.createdAt,
  cursor: endpoint.cursor,
  lease_owner: null,
  lease_until: null,
});

/** The columns `patch` changes (none for an empty patch). */
export function patchColumns(patch: WebhookEndpointPatch): Partial<EndpointRow> {
  const columns: Partial<EndpointRow> = {};
  if (patch.url !== undefined) columns.url = patch.url;
  if (patch.events !== undefined) columns.events = JSON.stringify(patch.events);
  if (patch.enabled !== undefined) columns.enabled = patch.enabled ? 1 : 0;
  if (patch.disabledReason !== undefined) columns.disabled_reason = patch.disabledReason;
  if (patch.secrets !== undefined) columns.secrets = secretsText(patch.secrets);
  return columns;
}

export const endpointOf = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  organizationId: row.organization_id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  enabled: toBoolean(row.enabled),
  disabledReason: row.disabled_reason as WebhookDisabledReason | null,
  secrets: JSON.parse(row.secrets) as WebhookSecret[],
  createdBy: row.created_by,
  createdAt: toNumber(row.created_at),
  cursor: toNumber(row.cursor),
});

/** The columns an attempt writes. */
export const attemptColumns = (attempt: WebhookAttempt) => ({
  status: attempt.status,
  attempts: attempt.attempts,
  last_attempt_at: attempt.lastAttemptAt,
  last_status_code: attempt.lastStatusCode,
  last_error: attempt.lastError,
  next_attempt_at: attempt.nextAttemptAt,
});

export const deliveryRow = (delivery: WebhookDelivery): DeliveryRow => ({
  id: delivery.id,
  endpoint_id: delivery.endpointId,
  entry_id: delivery.entryId,
  seq: delivery.seq,
  type: delivery.type,
  created_at: delivery.createdAt,
  redelivery: delivery.redelivery ? 1 : 0,
  ...attemptColumns(delivery),
});

export const deliveryOf = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  endpointId: row.endpoint_id,
  entryId: row.entry_id,
  seq: toNumber(row.seq),
  type: row.type,
  status: row.status as WebhookDeliveryStatus,
  attempts: toNumber(row.attempts),
  createdAt: toNumber(row.created_at),
  lastAttemptAt: orNull(row.last_attempt_at),
  lastStatusCode: orNull(row.last_status_code),
  lastError: row.last_error,
  nextAttemptAt: orNull(row.next_attempt_at),
  redelivery: toBoolean(row.redelivery),
});
