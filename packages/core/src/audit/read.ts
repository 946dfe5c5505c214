import { z } from "zod";
import { AuthError, guardPort } from "../errors.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { Logger } from "../ports/logger.js";
import { parseInput } from "../validation.js";
import { AUDIT_EXPORT_PAGE, type AuditExport, auditExport } from "./export.js";
import {
  type AuditCells,
  type AuditItem,
  type AuditView,
  auditFilterInput,
  auditPageInput,
  auditQueryOf,
  DEFAULT_AUDIT_PAGE,
  DEPLOYMENT_AUDIT_VIEW,
  decodeAuditCursor,
  ORGANIZATION_AUDIT_VIEW,
  type OrganizationAuditItem,
  parseAuditFilters,
} from "./query.js";
import type { AuditLog } from "./recorder.js";
import { type AuditVerification, verifyAuditChain } from "./verify.js";

/** A page of the audit log, newest first, as the back office and the host see it. */
export interface AuditPage {
  items: AuditItem[];
  /** Pass as `cursor` for the next (older) page; null on the last one. Opaque: sealed, never the same twice. */
  nextCursor: string | null;
}

/** A page of an organization's audit log, newest first, as its members see it (no `seq`, no `prevHash`). */
export interface OrganizationAuditPage {
  items: OrganizationAuditItem[];
  /** Pass as `cursor` for the next (older) page; null on the last one. Opaque: sealed, never the same twice. */
  nextCursor: string | null;
}

/** The audit log's store; `NOT_FOUND` when `stores.auditLog` is not configured (the feature is off). */
export function auditStoreOf(audit: Pick<AuditLog, "store">): AuditLogStore {
  if (!audit.store) throw new AuthError("NOT_FOUND");
  return audit.store;
}

/**
 * A page of the entries `input` filters (`organizationId`, `type`, `actor`, `from`, `to`,
 * `cursor`, `limit`), newest first, in `view`; `scope` fixes the organization whatever `input`
 * says. Reads one entry more than the page to know whether another follows; the cursor is sealed
 * (`AuditSeal.sealCursor`), one that does not open is `VALIDATION_FAILED` at `cursor`.
 */
async function readAuditPage<Item extends AuditCells<Item>>(
  audit: Pick<AuditLog, "store" | "seal">,
  input: unknown,
  view: AuditView<Item>,
  scope: { organizationId?: string },
): Promise<{ items: Item[]; nextCursor: string | null }> {
  const { cursor, limit = DEFAULT_AUDIT_PAGE, ...filters } = parseAuditFilters(auditPageInput, input);
  const afterSeq = cursor === undefined ? undefined : decodeAuditCursor(audit.seal, cursor);
  const store = auditStoreOf(audit);
  const query = { ...auditQueryOf({ ...filters, ...scope }, "desc", limit + 1), afterSeq };
  const entries = await guardPort("DATABASE_FAILURE", () => store.list(query));
  const page = entries.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(view.item),
    nextCursor: entries.length > limit && last ? audit.seal.sealCursor(last.seq) : null,
  };
}

/** A page of the deployment's audit log (`readAuditPage`), every field of each entry. */
export const listAuditPage = (audit: Pick<AuditLog, "store" | "seal">, input: unknown): Promise<AuditPage> =>
  readAuditPage(audit, input, DEPLOYMENT_AUDIT_VIEW, {});

/** A page of `organizationId`'s audit log (`readAuditPage`), as its members see it. */
export const listOrganizationAuditPage = (
  audit: Pick<AuditLog, "store" | "seal">,
  input: unknown,
  organizationId: string,
): Promise<OrganizationAuditPage> => readAuditPage(audit, input, ORGANIZATION_AUDIT_VIEW, { organizationId });

/** The `format` of an export: `ndjson` or `csv` (`VALIDATION_FAILED` at `format` otherwise). */
const exportFormat = z.object({ format: z.enum(["ndjson", "csv"]) });

/**
 * The export of the entries `input` filters (as `listAuditPage`, without `cursor` and `limit`),
 * oldest first, in `input.format`; with `context.organizationId`, that organization's entries as
 * its members see them (`ORGANIZATION_AUDIT_VIEW`). The first page is read now, so a failing store
 * rejects here (`DATABASE_FAILURE`) instead of breaking a stream already answered; a failure later
 * ends the stream and is logged `audit.export_failed`.
 */
export async function openAuditExport(
  audit: Pick<AuditLog, "store">,
  input: unknown,
  context: { now: number; logger: Logger; organizationId?: string },
): Promise<AuditExport> {
  const { format, ...rest } = (typeof input === "object" && input !== null ? input : {}) as {
    format?: unknown;
  };
  const parsed = parseInput(exportFormat, { format });
  const filters = parseAuditFilters(auditFilterInput, rest);
  const store = auditStoreOf(audit);
  const scope = context.organizationId === undefined ? {} : { organizationId: context.organizationId };
  const query = auditQueryOf({ ...filters, ...scope }, "asc", AUDIT_EXPORT_PAGE);
  const first = await guardPort("DATABASE_FAILURE", () => store.list(query));
  const shown = { format: parsed.format, now: context.now };
  const made =
    context.organizationId === undefined
      ? auditExport(store, query, { ...shown, view: DEPLOYMENT_AUDIT_VIEW }, first)
      : auditExport(store, query, { ...shown, view: ORGANIZATION_AUDIT_VIEW }, first);
  return { ...made, chunks: loggedChunks(made.chunks, context.logger) };
}

/** `chunks`, with a failure logged (`audit.export_failed`) before it ends the stream. */
async function* loggedChunks(chunks: AsyncIterable<string>, logger: Logger): AsyncIterable<string> {
  try {
    yield* chunks;
  } catch (error) {
    logger.error({ event: "audit.export_failed", err: String(error) }, "an audit log export failed midway");
    throw error;
  }
}

/** The input of a verification: which chain (the deployment's when absent). */
const verifyInput = z.object({ organizationId: z.string().min(1).max(256).optional() }).strict();

/**
 * Verifies the deployment's chain, or with `organizationId` that organization's
 * (`verifyAuditChain`). `VALIDATION_FAILED` for an `organizationId` that is no id.
 */
export async function verifyAuditScope(
  audit: Pick<AuditLog, "store" | "seal">,
  input: unknown,
): Promise<AuditVerification> {
  const given = typeof input === "object" && input !== null ? input : {};
  const present = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined && value !== ""),
  );
  const { organizationId } = parseInput(verifyInput, present);
  const store = auditStoreOf(audit);
  return guardPort("DATABASE_FAILURE", () => verifyAuditChain(store, audit.seal, organizationId));
}
