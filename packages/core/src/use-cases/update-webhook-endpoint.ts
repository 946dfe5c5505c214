import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import type { WebhookEndpointPatch } from "../ports/webhook-store.js";
import { parseInput } from "../validation.js";
import { actingOnWebhooks, emitWebhookEvent, endpointInScope, webhooksOn } from "../webhooks/manage.js";
import { toWebhookEndpointView, updateWebhookCall, type WebhookEndpointView } from "../webhooks/views.js";

/**
 * Changes an endpoint's `events` or turns it on or off (`enabled`). Turning it on clears
 * `disabledReason` (after a 410 or a message that failed through every retry, once the receiver
 * works again): it goes on from where it stopped. Turning it off marks it `manual`. An endpoint of
 * another scope is `NOT_FOUND`. Emits `webhook.updated`.
 */
export async function updateWebhookEndpoint(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ endpoint: WebhookEndpointView }> {
  const { store } = webhooksOn(ctx);
  const { organizationId, endpointId, events, enabled } = parseInput(updateWebhookCall, input);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: false });
  await endpointInScope(store, acting.organizationId, endpointId);
  const patch: WebhookEndpointPatch = {
    ...(events === undefined ? {} : { events: events.includes("*") ? ["*"] : [...events] }),
    ...(enabled === undefined ? {} : { enabled, disabledReason: enabled ? null : "manual" }),
  };
  const updated = await guardPort("DATABASE_FAILURE", () => store.updateEndpoint(endpointId, patch));
  if (updated === null) throw new AuthError("NOT_FOUND");
  emitWebhookEvent(acting, "webhook.updated");
  return { endpoint: toWebhookEndpointView(updated) };
}
