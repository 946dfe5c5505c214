import { verifyAuditScope } from "../audit/read.js";
import type { AuditVerification } from "../audit/verify.js";
import type { AuthContext } from "../context.js";
import type { Acting } from "../sessions/admin-actor.js";

/**
 * Walks the deployment's chain, or an organization's (`organizationId`), and names the first
 * broken entry (docs/audit-log.md, "The chain"); for the back office and the host.
 */
export async function verifyAuditLog(
  ctx: AuthContext,
  _acting: Acting,
  input?: { organizationId?: string | undefined },
): Promise<AuditVerification> {
  return verifyAuditScope(ctx.audit, input ?? {});
}
