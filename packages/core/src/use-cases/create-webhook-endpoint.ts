import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import type { WebhookEndpoint } from "../ports/webhook-store.js";
import { parseInput } from "../validation.js";
import {
  actingOnWebhooks,
  assertWebhookUrl,
  auditHead,
  emitWebhookEvent,
  mintWebhookSecret,
  newWebhookId,
  webhooksOn,
} from "../webhooks/manage.js";
import { createWebhookCall, toWebhookEndpointView, type WebhookEndpointView } from "../webhooks/views.js";

/**
 * A new webhook endpoint `{ url, events }` of an organization (`organizationId`: a member with
 * `webhook:manage`, and a step-up) or of the deployment (the back office). The URL must be https
 * and resolve to public addresses unless `webhooks.allowPrivateNetworks` (`VALIDATION_FAILED` at
 * `url`); at most `webhooks.maxEndpoints` per scope (`WEBHOOK_LIMIT_REACHED`: the store counts and
 * writes in one atomic step, so concurrent creations never overshoot it). The endpoint starts
 * at the audit log's head: it receives what happens after it was made. Its signing secret is in
 * the answer only; the store keeps it sealed. Emits `webhook.created`.
 */
export async function createWebhookEndpoint(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ endpoint: WebhookEndpointView; secret: string }> {
  const { store, auditLog, options } = webhooksOn(ctx);
  const { organizationId, url, events } = parseInput(createWebhookCall, input);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: true });
  await assertWebhookUrl(options, url);
  const scope = acting.organizationId;
  const { secret, sealed } = await mintWebhookSecret(ctx.secretBox);
  const endpoint: WebhookEndpoint = {
    id: newWebhookId(),
    organizationId: scope,
    url,
    events: events.includes("*") ? ["*"] : [...events],
    enabled: true,
    disabledReason: null,
    secrets: [sealed],
    createdBy: acting.userId,
    createdAt: ctx.clock.now(),
    cursor: await auditHead(auditLog),
  };
  const outcome = await guardPort("DATABASE_FAILURE", () =>
    store.createEndpoint(endpoint, { maxPerScope: options.maxEndpoints }),
  );
  if (outcome === "limit-reached") throw new AuthError("WEBHOOK_LIMIT_REACHED");
  emitWebhookEvent(acting, "webhook.created");
  return { endpoint: toWebhookEndpointView(endpoint), secret };
}
