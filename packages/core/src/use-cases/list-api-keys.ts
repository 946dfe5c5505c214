import { apiKeysOn } from "../api-keys/api-keys.js";
import { type ApiKeyView, toApiKeyView } from "../api-keys/views.js";
import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";
import type { ApiKeyOwner } from "../ports/api-key-store.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * The signed-in user's own API keys, newest first; with `organizationId`, the organization's keys
 * (whoever created them), which needs `api-key:manage` there (a non-member gets
 * `ORGANIZATION_NOT_FOUND`). Expired keys are listed too, with their `expiresAt`.
 */
export async function listApiKeys(
  ctx: AuthContext,
  call: Call,
  input: { organizationId?: string | undefined } = {},
): Promise<{ items: ApiKeyView[] }> {
  const { store } = apiKeysOn(ctx);
  const principal = signedIn(call);
  let owner: ApiKeyOwner = { userId: principal.userId, organizationId: null };
  if (input.organizationId !== undefined) {
    const { member } = await actingMember(ctx, call, input.organizationId);
    assertPermission(member, "api-key:manage");
    owner = { organizationId: input.organizationId };
  }
  const records = await guardPort("DATABASE_FAILURE", () => store.listApiKeys(owner));
  return { items: records.map(toApiKeyView) };
}
