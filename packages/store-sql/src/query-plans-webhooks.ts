import { pendingWebhookDelivery, type WebhookDelivery, type WebhookEndpoint } from "@portcullis/core";
import type { SqlDialect } from "./context.js";
import type { HotCalls, PlannedStores, Series } from "./query-plans-support.js";

/**
 * Test support for query-plans.test.ts (not part of the package's exports): the webhook tables
 * filled and the webhook store's calls, in that file's terms.
 */

/**
 * `rows` endpoints (one in 1,000 the deployment's, the others of 5,000 organizations, every lease
 * free) and `rows` deliveries, 20 for each of the first 1,000 endpoints (one in ten pending, one
 * in ten failed, the others succeeded), made one per millisecond up to `now`.
 */
export function webhookFillStatements(
  series: Series,
  dialect: SqlDialect,
  rows: number,
  now: number,
): string[] {
  const [yes, no] = dialect === "postgres" ? ["true", "false"] : ["1", "0"];
  return [
    series(
      rows,
      `'we' || n, case when n % 1000 <> 0 then 'o' || (n % 5000) end, 'https://hooks.example.com/' || n, '["*"]', ${yes}, '[]', ${now} - ${rows} + n, n`,
      "portcullis_webhook_endpoints",
      "id, organization_id, url, events, enabled, secrets, created_at, cursor",
    ),
    series(
      rows,
      `'wd' || n, 'we' || (n % 1000 + 1), 'e' || n, n, 'login.succeeded', case n % 10 when 0 then 'pending' when 1 then 'failed' else 'succeeded' end, 1, ${now} - ${rows} + n, ${no}`,
      "portcullis_webhook_deliveries",
      "id, endpoint_id, entry_id, seq, type, status, attempts, created_at, redelivery",
    ),
  ];
}

/**
 * The webhook store's calls of the delivery workers and of the endpoints' routes. Not among them:
 * `listEndpoints(undefined)`, which reads every endpoint by design (a scan of the whole table).
 */
export function webhookCalls(stores: PlannedStores, now: number, rows: number): HotCalls {
  const webhooks = stores.webhooks;
  const lease = { owner: "instance-a", now };
  const delivery = (id: string, endpointId: string): WebhookDelivery =>
    pendingWebhookDelivery(
      { id, endpointId, entryId: `entry-${id}`, seq: 999_999, type: "login.succeeded", redelivery: false },
      now,
    );
  const endpoint = (id: string): WebhookEndpoint => ({
    id,
    organizationId: null,
    url: "https://hooks.example.com/new",
    events: ["*"],
    enabled: true,
    disabledReason: null,
    secrets: [],
    createdBy: null,
    createdAt: now,
    cursor: 0,
  });
  const attempt = {
    status: "succeeded" as const,
    attempts: 1,
    lastAttemptAt: now,
    lastStatusCode: 200,
    lastError: null,
    nextAttemptAt: null,
  };
  return [
    ["webhooks.findEndpoint", () => webhooks.findEndpoint("we5")],
    [
      "webhooks.createEndpoint (organization)",
      () => webhooks.createEndpoint({ ...endpoint("we-new-o"), organizationId: "o6" }, { maxPerScope: 20 }),
    ],
    [
      "webhooks.createEndpoint (deployment)",
      () => webhooks.createEndpoint(endpoint("we-new-d"), { maxPerScope: 100 }),
    ],
    ["webhooks.listEndpoints (organization)", () => webhooks.listEndpoints("o6")],
    ["webhooks.listEndpoints (deployment)", () => webhooks.listEndpoints(null)],
    [
      "webhooks.updateEndpoint",
      () => webhooks.updateEndpoint("we5", { enabled: false, disabledReason: "manual" }),
    ],
    ["webhooks.tryLease", () => webhooks.tryLease("we7", "instance-a", now, now + 30_000)],
    ["webhooks.advance", () => webhooks.advance("we7", lease, 7, 999_999, [delivery("wd-new", "we7")])],
    ["webhooks.recordAttempt", () => webhooks.recordAttempt("we7", lease, "wd-new", attempt, "failing")],
    ["webhooks.releaseLease", () => webhooks.releaseLease("we7", "instance-a")],
    [
      "webhooks.addDelivery",
      () => webhooks.addDelivery({ ...delivery("wd-again", "we8"), redelivery: true }),
    ],
    ["webhooks.pendingDeliveries", () => webhooks.pendingDeliveries("we10")],
    ["webhooks.listDeliveries (first page)", () => webhooks.listDeliveries("we10", { limit: 20 })],
    [
      "webhooks.listDeliveries (before)",
      () => webhooks.listDeliveries("we10", { limit: 5, before: "wd9009" }),
    ],
    ["webhooks.findDelivery", () => webhooks.findDelivery("we10", "wd9009")],
    ["webhooks.deleteEndpoint", () => webhooks.deleteEndpoint("we12")],
    ["webhooks.sweepDeliveries", () => webhooks.sweepDeliveries(now - rows + 50)],
  ];
}
