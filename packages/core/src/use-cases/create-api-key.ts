import { apiKeysOn } from "../api-keys/api-keys.js";
import { generateApiKey } from "../api-keys/key-format.js";
import { type ApiKeyView, createApiKeyInput, toApiKeyView } from "../api-keys/views.js";
import type { AuthContext } from "../context.js";
import { AuthError, guardPort, ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember, assertKnownPermissions } from "../organizations/acting.js";
import { assertPermission } from "../organizations/membership.js";
import { assertHoldsAll } from "../organizations/roles.js";
import type { ApiKeyRecord } from "../ports/api-key-store.js";
import { signedIn } from "../sessions/signed-in.js";
import { randomId } from "../tokens/random.js";
import { requireStepUp } from "../two-factor/settings.js";
import { fieldIssue, parseInput } from "../validation.js";

const DAY_MS = 24 * 3600 * 1000;

/**
 * A new API key `{ name, expiresInDays?, organizationId?, permissions? }` (needs step-up): the
 * signed-in user's own, or, with `organizationId`, the organization's, which needs `api-key:manage`
 * there and carries `permissions`, each one the creator holds (`PERMISSION_DENIED` otherwise).
 * `API_KEY_LIMIT_REACHED` once the owner has `maxPerOwner` keys (the store counts and writes in one
 * atomic step, so concurrent creations never overshoot it). The key itself is in the answer
 * only: the store keeps its keyed hash. Emits `api_key.created`.
 */
export async function createApiKey(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ apiKey: ApiKeyView; key: string }> {
  const { store, options } = apiKeysOn(ctx);
  await requireStepUp(ctx, call);
  const principal = signedIn(call);
  const { name, expiresInDays, organizationId, permissions } = parseInput(createApiKeyInput, input);
  if (options.maxExpiresInDays !== undefined && (expiresInDays ?? Infinity) > options.maxExpiresInDays)
    throw new ValidationError([
      fieldIssue("expiresInDays", "too_big", { maximum: options.maxExpiresInDays }),
    ]);
  if (organizationId !== undefined) {
    const { member, organizations } = await actingMember(ctx, call, organizationId);
    assertPermission(member, "api-key:manage");
    assertKnownPermissions(organizations.options, permissions ?? []);
    assertHoldsAll(member, permissions ?? []);
  }
  const now = ctx.clock.now();
  const { key, lookupId, start } = generateApiKey();
  const record: ApiKeyRecord = {
    id: randomId(),
    lookupId,
    keyHash: ctx.apiKeyHash.hash(key),
    name,
    start,
    userId: principal.userId,
    organizationId: organizationId ?? null,
    permissions: organizationId === undefined ? null : [...new Set(permissions)],
    createdAt: now,
    expiresAt: expiresInDays === undefined ? null : now + expiresInDays * DAY_MS,
    lastUsedAt: null,
  };
  const outcome = await guardPort("DATABASE_FAILURE", () =>
    store.createApiKey(record, { maxPerOwner: options.maxPerOwner }),
  );
  if (outcome === "limit-reached") throw new AuthError("API_KEY_LIMIT_REACHED");
  ctx.events.emit("api_key.created", {
    ...call.request,
    userId: principal.userId,
    sessionId: principal.sessionId,
    actor: principal.userId,
    ...(organizationId === undefined ? {} : { organizationId }),
  });
  return { apiKey: toApiKeyView(record), key };
}
