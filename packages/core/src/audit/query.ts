import { z } from "zod";
import { ValidationError } from "../errors.js";
import type { AuditDraft, AuditEntry, AuditQuery } from "../ports/audit-log-store.js";
import { fieldIssue, parseInput } from "../validation.js";
import type { AuditSeal } from "./seal.js";

/** Entries per page when the caller names no `limit`. */
export const DEFAULT_AUDIT_PAGE = 50;
/** The most entries one page may ask for. */
export const MAX_AUDIT_PAGE = 200;

/** An instant of a filter: ISO 8601 (`2026-01-31`, `2026-01-31T12:00:00Z`) or milliseconds since the epoch. */
const instant = z
  .string()
  .max(40)
  .transform((text, context) => {
    const at = /^\d{1,16}$/.test(text)
      ? Number(text)
      : /^\d{4}-\d\d-\d\d/.test(text)
        ? Date.parse(text)
        : Number.NaN;
    if (Number.isFinite(at)) return at;
    context.addIssue({ code: "custom", message: "not an ISO 8601 instant or epoch milliseconds" });
    return z.NEVER;
  });

/** The filters of a listing or an export; query-string text, as the routes pass it. */
export const auditFilterInput = z
  .object({
    organizationId: z.string().min(1).max(256).optional(),
    type: z
      .string()
      .regex(/^[a-z][a-z_]*(\.[a-z_]+)*$/)
      .max(64)
      .optional(),
    actor: z.string().min(1).max(256).optional(),
    from: z.union([z.number().int().min(0), instant]).optional(),
    to: z.union([z.number().int().min(0), instant]).optional(),
  })
  .strict();

/** A page's input: the filters, `cursor` (the previous page's `nextCursor`) and `limit` (1 … 200, default 50). */
export const auditPageInput = auditFilterInput.extend({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).optional(),
});

/** The filters of `input`, "" counting as absent (`?type=` from a form); `VALIDATION_FAILED` with the fields otherwise. */
export function parseAuditFilters<S extends typeof auditFilterInput | typeof auditPageInput>(
  schema: S,
  input: unknown,
): z.output<S> {
  const given = typeof input === "object" && input !== null ? input : {};
  const present = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = parseInput(schema, present) as z.output<S>;
  const { from, to } = parsed as { from?: number; to?: number };
  if (from !== undefined && to !== undefined && from > to)
    throw new ValidationError([fieldIssue("to", "invalid")]);
  return parsed;
}

/** The store query of parsed filters. */
export function auditQueryOf(
  filters: z.output<typeof auditFilterInput>,
  order: AuditQuery["order"],
  limit: number,
): AuditQuery {
  return {
    organizationId: filters.organizationId,
    type: filters.type,
    actorId: filters.actor,
    from: filters.from,
    to: filters.to,
    order,
    limit,
  };
}

/**
 * The position a cursor names (`AuditSeal.openCursor`); `VALIDATION_FAILED` (at `cursor`) for
 * one this server did not make, or that was changed.
 */
export function decodeAuditCursor(seal: Pick<AuditSeal, "openCursor">, cursor: string): number {
  const seq = seal.openCursor(cursor);
  if (seq === undefined) throw new ValidationError([fieldIssue("cursor", "invalid_cursor")]);
  return seq;
}

/**
 * One entry as an organization's members see it (its routes, host API and exports): nothing of
 * the rest of the deployment, so neither the entry's place in the deployment's chain (`seq`) nor
 * the hash of the deployment's entry before it (`prevHash`).
 */
export interface OrganizationAuditItem extends Omit<AuditDraft, "at"> {
  /** ISO 8601. */
  at: string;
  /** The hash of the organization's entry before it (null for its first). */
  orgPrevHash: string | null;
  hash: string;
}

/** One entry as the back office, the host API and their exports show it (the deployment's view). */
export interface AuditItem extends OrganizationAuditItem {
  /** Its place in the deployment's chain. */
  seq: number;
  /** The hash of the deployment's entry before it. */
  prevHash: string;
}

/** The columns of an item, in the order of the CSV export. */
export const AUDIT_COLUMNS: readonly (keyof AuditItem)[] = [
  "id",
  "seq",
  "at",
  "type",
  "actorType",
  "actorId",
  "userId",
  "organizationId",
  "sessionId",
  "ip",
  "userAgent",
  "reason",
  "prevHash",
  "orgPrevHash",
  "hash",
];

/** The columns of an organization's CSV export: `AUDIT_COLUMNS` without `seq` and `prevHash`. */
export const ORGANIZATION_AUDIT_COLUMNS: readonly (keyof OrganizationAuditItem)[] = AUDIT_COLUMNS.filter(
  (column): column is keyof OrganizationAuditItem => column !== "seq" && column !== "prevHash",
);

export const toOrganizationAuditItem = (entry: AuditEntry): OrganizationAuditItem => ({
  id: entry.id,
  at: new Date(entry.at).toISOString(),
  type: entry.type,
  actorType: entry.actorType,
  actorId: entry.actorId,
  userId: entry.userId,
  organizationId: entry.organizationId,
  sessionId: entry.sessionId,
  ip: entry.ip,
  userAgent: entry.userAgent,
  reason: entry.reason,
  orgPrevHash: entry.orgPrevHash,
  hash: entry.hash,
});

/** The deployment's view of an entry: the organization's, with `seq` and `prevHash`, in `AUDIT_COLUMNS`' order. */
export function toAuditItem(entry: AuditEntry): AuditItem {
  const { id, orgPrevHash, hash, ...fields } = toOrganizationAuditItem(entry);
  return { id, seq: entry.seq, ...fields, prevHash: entry.prevHash, orgPrevHash, hash };
}

/** An item whose every field is a CSV cell's value. */
export type AuditCells<Item> = { [K in keyof Item]: string | number | null };

/** How a scope shows its entries: the item of an entry, and the columns of its CSV export. */
export interface AuditView<Item extends AuditCells<Item>> {
  item: (entry: AuditEntry) => Item;
  columns: readonly (keyof Item & string)[];
}

/** The back office's and the host's view: the whole `AuditItem`. */
export const DEPLOYMENT_AUDIT_VIEW: AuditView<AuditItem> = { item: toAuditItem, columns: AUDIT_COLUMNS };
/** An organization's view: `OrganizationAuditItem`, nothing of the rest of the deployment. */
export const ORGANIZATION_AUDIT_VIEW: AuditView<OrganizationAuditItem> = {
  item: toOrganizationAuditItem,
  columns: ORGANIZATION_AUDIT_COLUMNS,
};

/** The filters as a caller of the host API or the use cases gives them (`from`/`to`: ISO 8601 text or epoch ms). */
export interface AuditFilters {
  organizationId?: string | undefined;
  type?: string | undefined;
  /** An `actorId`: a user's id, an API key's id, a host call's named actor. */
  actor?: string | undefined;
  from?: string | number | undefined;
  to?: string | number | undefined;
}
