import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { WebhookDisabledReason, WebhookEndpoint } from "../ports/webhook-store.js";
import { createWebhookEngine, type WebhookEngine } from "../webhooks/engine.js";
import { newWebhookId } from "../webhooks/manage.js";
import type { WebhookApi } from "./webhook-api.js";

/**
 * What `createAuth` needs to wire webhooks: `wake` (the audit recorder calls it after each append
 * that wrote) and, once the context exists, `start` (which builds this instance's delivery
 * engine and starts it when `webhooks` is configured).
 */
export function webhookWiring() {
  let engine: WebhookEngine | undefined;
  return {
    /** Wakes the engine (the audit log got new entries); a no-op before `start` or without webhooks. */
    wake: () => engine?.nudge(),
    /** Builds and starts the engine (it polls only with `webhooks.deliver`); undefined without webhooks. */
    start(ctx: AuthContext): WebhookEngine | undefined {
      engine = webhookEngine(ctx);
      engine?.start();
      return engine;
    },
  };
}

/** This instance's delivery engine, or undefined when webhooks are off. */
function webhookEngine(ctx: AuthContext): WebhookEngine | undefined {
  const store = ctx.options.stores.webhooks;
  const auditLog = ctx.audit.store;
  const options = ctx.options.webhooks;
  if (store === undefined || auditLog === undefined || options === undefined) return undefined;
  const organizations = ctx.organizations;
  return createWebhookEngine({
    store,
    auditLog,
    openSecret: (sealed) => ctx.secretBox.open(sealed),
    options,
    clock: ctx.clock,
    logger: ctx.logger,
    onDisabled: (endpoint, reason) => endpointDisabled(ctx, endpoint, reason),
    newId: newWebhookId,
    organizationExists: organizations && (async (id) => (await organizations.findOrganization(id)) !== null),
  });
}

/**
 * When the worker turned an endpoint off (410, or a message that failed through every retry): the
 * `webhook.disabled` event (actor `system`), and an email to the user who created the endpoint,
 * when they still exist (in the background; failures are logged).
 */
async function endpointDisabled(
  ctx: AuthContext,
  endpoint: WebhookEndpoint,
  reason: WebhookDisabledReason,
): Promise<void> {
  ctx.events.emit("webhook.disabled", {
    userId: endpoint.createdBy,
    reason,
    ...(endpoint.organizationId === null ? {} : { organizationId: endpoint.organizationId }),
  });
  const creator = endpoint.createdBy;
  if (creator === null) return;
  const user = await guardPort("DATABASE_FAILURE", () => ctx.users.findById(creator));
  if (user === null) return;
  ctx.emails.sendInBackground("webhook-disabled", user.email, ctx.translator.defaultLocale, {
    name: user.name,
    webhookUrl: endpoint.url,
    ...(reason === "gone" ? { variant: "gone" as const } : {}),
  });
}

/** The management methods, bound to the context, as `createAuth` binds them. */
type BoundManagement = Omit<WebhookApi, "enabled" | "deliverNow" | "stop">;

/**
 * `auth.webhooks`: the bound management methods, a wake of the engine after a redelivery or a
 * change (so it is sent soon), and the engine's `runOnce` and `stop` (which resolve at once
 * without webhooks).
 */
export function webhookApi(engine: WebhookEngine | undefined, bound: BoundManagement): WebhookApi {
  return {
    enabled: engine !== undefined,
    ...bound,
    async update(call, input) {
      const result = await bound.update(call, input);
      engine?.nudge();
      return result;
    },
    async redeliver(call, input) {
      const result = await bound.redeliver(call, input);
      engine?.nudge();
      return result;
    },
    deliverNow: async () => engine?.runOnce(),
    stop: async () => engine?.stop(),
  };
}
