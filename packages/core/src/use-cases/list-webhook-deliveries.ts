import type { AuthContext } from "../context.js";
import { guardPort, ValidationError } from "../errors.js";
import type { Call } from "../model.js";
import { fieldIssue, parseInput } from "../validation.js";
import { actingOnWebhooks, endpointInScope, webhooksOn } from "../webhooks/manage.js";
import {
  isWebhookId,
  listDeliveriesCall,
  toWebhookDeliveryView,
  type WebhookDeliveryView,
} from "../webhooks/views.js";

/** Deliveries per page unless `limit` says otherwise. */
const DEFAULT_LIMIT = 20;

/**
 * An endpoint's deliveries, newest first: `limit` (1 to 100, default 20) of them, those older than
 * the delivery `before` when given (the last id of the previous page).
 */
export async function listWebhookDeliveries(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ items: WebhookDeliveryView[] }> {
  const { store } = webhooksOn(ctx);
  const { organizationId, endpointId, limit = DEFAULT_LIMIT, before } = parseInput(listDeliveriesCall, input);
  if (before !== undefined && !isWebhookId(before))
    throw new ValidationError([fieldIssue("before", "invalid_cursor")]);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: false });
  await endpointInScope(store, acting.organizationId, endpointId);
  const deliveries = await guardPort("DATABASE_FAILURE", () =>
    store.listDeliveries(endpointId, { limit, before }),
  );
  return { items: deliveries.map(toWebhookDeliveryView) };
}
