import { z } from "zod";
import { AuthError, guardPort } from "../errors.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { Logger } from "../ports/logger.js";
import { parseInput } from "../validation.js";
import { AUDIT_EXPORT_PAGE, type AuditExport, auditExport } from "./export.js";
import {
  type AuditItem,
  auditFilterInput,
  auditPageInput,
  auditQueryOf,
  DEFAULT_AUDIT_PAGE,
  decodeAuditCursor,
  encodeAuditCursor,
  parseAuditFilters,
  toAuditItem,
} from "./query.js";
import type { AuditLog } from "./recorder.js";
import { type AuditVerification, verifyAuditChain } from "./verify.js";

/** A page of the audit log, newest first. */
export interface AuditPage {
  items: AuditItem[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
}

/** The audit log's store; `NOT_FOUND` when `stores.auditLog` is not configured (the feature is off). */
export function auditStoreOf(audit: Pick<AuditLog, "store">): AuditLogStore {
  if (!audit.store) throw new AuthError("NOT_FOUND");
  return audit.store;
}

/**
 * A page of the entries `input` filters (`organizationId`, `type`, `actor`, `from`, `to`,
 * `cursor`, `limit`), newest first; `scope` fixes the organization whatever `input` says. Reads one
 * entry more than the page to know whether another follows.
 */
export async function listAuditPage(
  audit: Pick<AuditLog, "store">,
  input: unknown,
  scope: { organizationId?: string } = {},
): Promise<AuditPage> {
  const { cursor, limit = DEFAULT_AUDIT_PAGE, ...filters } = parseAuditFilters(auditPageInput, input);
  const afterSeq = cursor === undefined ? undefined : decodeAuditCursor(cursor);
  const store = auditStoreOf(audit);
  const query = { ...auditQueryOf({ ...filters, ...scope }, "desc", limit + 1), afterSeq };
  const entries = await guardPort("DATABASE_FAILURE", () => store.list(query));
  const page = entries.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toAuditItem),
    nextCursor: entries.length > limit && last ? encodeAuditCursor(last.seq) : null,
  };
}

/** The `format` of an export: `ndjson` or `csv` (`VALIDATION_FAILED` at `format` otherwise). */
const exportFormat = z.object({ format: z.enum(["ndjson", "csv"]) });

/**
 * The export of the entries `input` filters (as `listAuditPage`, without `cursor` and `limit`),
 * oldest first, in `input.format`. The first page is read now, so a failing store rejects here
 * (`DATABASE_FAILURE`) instead of breaking a stream already answered; a failure later ends the
 * stream and is logged `audit.export_failed`.
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
  const made = auditExport(store, query, parsed.format, context.now, first);
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
