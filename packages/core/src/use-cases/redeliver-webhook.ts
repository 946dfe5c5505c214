import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { parseInput } from "../validation.js";
import { actingOnWebhooks, endpointInScope, newWebhookId, webhooksOn } from "../webhooks/manage.js";
import { pendingWebhookDelivery } from "../webhooks/records.js";
import {
  isWebhookId,
  redeliverCall,
  toWebhookDeliveryView,
  type WebhookDeliveryView,
} from "../webhooks/views.js";

/**
 * Sends one of an endpoint's messages again: a new delivery of the same event (the same
 * `webhook-id`, so a receiver that keeps ids sees it is the same message), sent once beside the
 * endpoint's order (no retries: a failed one can be asked for again); it waits while the endpoint
 * is off. An unknown delivery, or one of another endpoint, is `NOT_FOUND`.
 */
export async function redeliverWebhook(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ delivery: WebhookDeliveryView }> {
  const { store } = webhooksOn(ctx);
  const { organizationId, endpointId, deliveryId } = parseInput(redeliverCall, input);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: false });
  await endpointInScope(store, acting.organizationId, endpointId);
  if (!isWebhookId(deliveryId)) throw new AuthError("NOT_FOUND");
  const original = await guardPort("DATABASE_FAILURE", () => store.findDelivery(endpointId, deliveryId));
  if (original === null) throw new AuthError("NOT_FOUND");
  const { entryId, seq, type } = original;
  const delivery = pendingWebhookDelivery(
    { id: newWebhookId(), endpointId, entryId, seq, type, redelivery: true },
    ctx.clock.now(),
  );
  await guardPort("DATABASE_FAILURE", () => store.addDelivery(delivery));
  return { delivery: toWebhookDeliveryView(delivery) };
}
