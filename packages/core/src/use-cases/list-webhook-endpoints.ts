import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { parseInput } from "../validation.js";
import { actingOnWebhooks, webhooksOn } from "../webhooks/manage.js";
import { listWebhooksCall, toWebhookEndpointView, type WebhookEndpointView } from "../webhooks/views.js";

/**
 * The webhook endpoints of an organization (`organizationId`, `webhook:manage`) or of the
 * deployment (the back office), oldest first, without their secrets.
 */
export async function listWebhookEndpoints(
  ctx: AuthContext,
  call: Call,
  input?: unknown,
): Promise<{ items: WebhookEndpointView[] }> {
  const { store } = webhooksOn(ctx);
  const organizationId = parseInput(listWebhooksCall, input)?.organizationId;
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: false });
  const endpoints = await guardPort("DATABASE_FAILURE", () => store.listEndpoints(acting.organizationId));
  return { items: endpoints.map(toWebhookEndpointView) };
}
