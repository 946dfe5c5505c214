import type { AuthContext } from "../context.js";
import { ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, grantsOfRole, organizationRecord } from "../organizations/acting.js";
import { assertPermission, organizationsOn } from "../organizations/membership.js";
import { actingAdmin } from "../sessions/admin-actor.js";
import { ssoStoreOf } from "../sso/connections.js";
import { requireStepUp } from "../two-factor/settings.js";
import { fieldIssue } from "../validation.js";

/**
 * Whether the caller may manage the organization's enterprise sign-in (`auth.sso.authorize`):
 * `sso` on (`NOT_FOUND`), then either the back office (`asAdmin`: `admin.authorize` and a
 * step-up, `ADMIN_REQUIRED` / `STEP_UP_REQUIRED`; the organization must exist,
 * `ORGANIZATION_NOT_FOUND`) or a signed-in member (`ORGANIZATION_NOT_FOUND` for anyone else)
 * whose role grants `sso:manage` (`PERMISSION_DENIED`), with `stepUp` a live step-up token.
 * With `defaultRole` (a connection's, about to be stored), that role must be one the organization
 * has, built in or custom, and not `owner` (`VALIDATION_FAILED` at `defaultRole`): an identity
 * provider never makes owners.
 */
export async function authorizeSsoManager(
  ctx: AuthContext,
  call: Call,
  {
    organizationId,
    stepUp = false,
    asAdmin = false,
    defaultRole,
  }: { organizationId: string; stepUp?: boolean; asAdmin?: boolean; defaultRole?: string },
): Promise<{ userId: string; role: string }> {
  ssoStoreOf(ctx);
  let acting: { userId: string; role: string };
  if (asAdmin) {
    const userId = await actingAdmin(ctx, call);
    await organizationRecord(organizationsOn(ctx), organizationId);
    acting = { userId, role: "admin" };
  } else {
    const { principal, member } = await actingMember(ctx, call, organizationId);
    assertPermission(member, "sso:manage");
    if (stepUp) await requireStepUp(ctx, call);
    acting = { userId: principal.userId, role: member.role };
  }
  if (defaultRole !== undefined) {
    const invalid = new ValidationError([fieldIssue("defaultRole", "invalid")]);
    if (defaultRole === "owner") throw invalid;
    await grantsOfRole(organizationsOn(ctx), organizationId, defaultRole).catch((error: unknown) => {
      throw error instanceof ValidationError ? invalid : error;
    });
  }
  return acting;
}
