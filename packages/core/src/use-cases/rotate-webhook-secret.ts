import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { parseInput } from "../validation.js";
import {
  actingOnWebhooks,
  emitWebhookEvent,
  endpointInScope,
  mintWebhookSecret,
  rotatedSecrets,
  webhooksOn,
} from "../webhooks/manage.js";
import { webhookEndpointCall } from "../webhooks/views.js";

/**
 * A new signing secret for an endpoint (an organization's needs a step-up), in the answer only.
 * Messages are signed with the new one and, for 24 hours more, the one it replaces too (two
 * signatures in `webhook-signature`), so the receiver can switch without losing one. Emits
 * `webhook.secret_rotated`.
 */
export async function rotateWebhookSecret(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ secret: string }> {
  const { store } = webhooksOn(ctx);
  const { organizationId, endpointId } = parseInput(webhookEndpointCall, input);
  const acting = await actingOnWebhooks(ctx, call, organizationId, { stepUp: true });
  const endpoint = await endpointInScope(store, acting.organizationId, endpointId);
  const { secret, sealed } = await mintWebhookSecret(ctx.secretBox);
  const secrets = rotatedSecrets(endpoint.secrets, sealed, ctx.clock.now());
  const updated = await guardPort("DATABASE_FAILURE", () => store.updateEndpoint(endpointId, { secrets }));
  if (updated === null) throw new AuthError("NOT_FOUND");
  emitWebhookEvent(acting, "webhook.secret_rotated");
  return { secret };
}
