import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { parseInput } from "../validation.js";
import { actingOnWebhooks, emitWebhookEvent, endpointInScope, webhooksOn } from "../webhooks/manage.js";
import { webhookEndpointCall } from "../webhooks/views.js";

/**
 * Removes an endpoint with its deliveries: nothing more is sent to it (an attempt already under
 * way may still finish). An endpoint of another scope is `NOT_FOUND`. Emits `webhook.deleted`.
 */
export async function deleteWebhookEndpoint(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ success: true }> {
  const { store } = webhooksOn(ctx);
  const { organizationId, endpointId } = parseInput(webhookEndpointCall, input);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: false });
  await endpointInScope(store, acting.organizationId, endpointId);
  const deleted = await guardPort("DATABASE_FAILURE", () => store.deleteEndpoint(endpointId));
  if (!deleted) throw new AuthError("NOT_FOUND");
  emitWebhookEvent(acting, "webhook.deleted");
  return { success: true };
}
