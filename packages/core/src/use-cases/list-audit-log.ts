import type { AuditFilters } from "../audit/query.js";
import { type AuditPage, listAuditPage } from "../audit/read.js";
import type { AuthContext } from "../context.js";
import type { Acting } from "../sessions/admin-actor.js";

/**
 * A page of the deployment's audit log, newest first, filtered by `organizationId`, `type`,
 * `actor`, `from`, `to` (docs/audit-log.md); for the back office (`asAdmin`) and the host (`asHost`).
 */
export async function listAuditLog(
  ctx: AuthContext,
  _acting: Acting,
  input?: AuditFilters & { cursor?: string | undefined; limit?: number | string | undefined },
): Promise<AuditPage> {
  return listAuditPage(ctx.audit, input ?? {});
}
