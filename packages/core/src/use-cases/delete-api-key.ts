import { apiKeysOn } from "../api-keys/api-keys.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { findMember, isPlausibleId } from "../organizations/membership.js";
import type { ApiKeyRecord } from "../ports/api-key-store.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * Deletes an API key: the signed-in user's own, or an organization's when they hold
 * `api-key:manage` there. Anyone else's, or none, is `NOT_FOUND` (nobody learns that a key
 * exists). From the moment this resolves, every instance refuses the key (`API_KEY_INVALID`): no
 * instance keeps keys in memory. Emits `api_key.deleted`.
 */
export async function deleteApiKey(ctx: AuthContext, call: Call, id: string): Promise<{ success: true }> {
  const { store } = apiKeysOn(ctx);
  const principal = signedIn(call);
  if (!isPlausibleId(id)) throw new AuthError("NOT_FOUND");
  const record = await guardPort("DATABASE_FAILURE", () => store.findApiKey(id));
  if (record === null || !(await mayManage(ctx, record, principal.userId))) throw new AuthError("NOT_FOUND");
  const deleted = await guardPort("DATABASE_FAILURE", () => store.deleteApiKey(id));
  if (deleted === null) throw new AuthError("NOT_FOUND");
  ctx.events.emit("api_key.deleted", {
    ...call.request,
    userId: principal.userId,
    sessionId: principal.sessionId,
    actor: principal.userId,
    ...(record.organizationId === null ? {} : { organizationId: record.organizationId }),
  });
  return { success: true };
}

/** Whether `userId` may delete the key: it is theirs, or its organization lets them manage keys. */
async function mayManage(ctx: AuthContext, record: ApiKeyRecord, userId: string): Promise<boolean> {
  if (record.organizationId === null) return record.userId === userId;
  const store = ctx.organizations;
  const options = ctx.options.organizations;
  if (store === undefined || options === undefined) return false;
  const member = await findMember({ store, options }, record.organizationId, userId);
  return member?.permissions.includes("api-key:manage") === true;
}
