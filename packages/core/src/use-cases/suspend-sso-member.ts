import { deleteUserKeys } from "../api-keys/api-keys.js";
import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { findMember, organizationsOn } from "../organizations/membership.js";
import { endUserSessions } from "../sessions/session-lifecycle.js";
import { provisioningConnection } from "../sso/provisioning.js";

/**
 * The directory deactivated (or deleted) the account's user (`auth.sso.suspendMember`, SCIM):
 * its membership of the connection's organization is removed (an owner's stays: the directory
 * never takes an organization's owners away), then every session of the account ends at once
 * (access tokens refused from the next request), its own API keys are deleted, and
 * `user.deprovisioned` is emitted, which also ends the account's OAuth grants where the provider
 * is on. `suspendedRole`: the role the membership had, null when there was none (or an owner's);
 * the caller keeps it to give back on reactivation. Idempotent: a retry after a store failure
 * finishes the work (the role then reads null, as the membership is already gone).
 */
export async function suspendSsoMember(
  ctx: AuthContext,
  { request = {} }: Call,
  input: { connectionId: string; userId: string },
): Promise<{ suspendedRole: string | null; sessionsEnded: number }> {
  const { connection, scim } = await provisioningConnection(ctx, input.connectionId);
  const organizations = organizationsOn(ctx);
  const { organizationId } = connection;
  const { userId } = input;
  const member = await findMember(organizations, organizationId, userId);
  let suspendedRole: string | null = null;
  if (member !== null && member.role !== "owner") {
    const removed = await guardPort("DATABASE_FAILURE", () =>
      organizations.store.removeMember(organizationId, userId),
    );
    if (removed === "removed") {
      suspendedRole = member.role;
      scim.events.emit("member.removed", { ...request, userId, organizationId, reason: "deprovisioned" });
    }
  }
  const ended = await endUserSessions(ctx, userId);
  await deleteUserKeys(ctx, userId);
  scim.events.emit("user.deprovisioned", {
    ...request,
    userId,
    organizationId,
    reason: `sessions_ended:${ended.length}`,
  });
  return { suspendedRole, sessionsEnded: ended.length };
}
