import type { WebhookStore } from "@portcullis/core";
import type { AnyKysely, SqlContext } from "./context.js";
import { insertWithinLimit } from "./insert-within-limit.js";
import { endpointRow } from "./webhook-rows.js";

/**
 * `createEndpoint`: counts the scope's endpoints (the organization's, or the deployment's) and
 * inserts under a lock on the scope (`insertWithinLimit`), so concurrent creations in one scope
 * take turns and never overshoot `maxPerScope`, as the API key store's `createApiKey` does for an
 * owner. The count reads the `(organization_id, created_at, id)` index.
 */
export function endpointCreation(context: SqlContext): WebhookStore["createEndpoint"] {
  const table = context.tables.webhookEndpoints;
  return (endpoint, { maxPerScope }) => {
    const scope = endpoint.organizationId;
    const full = async (trx: AnyKysely) => {
      const { n } = await trx
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as("n"))
        .where("organization_id", scope === null ? "is" : "=", scope)
        .executeTakeFirstOrThrow();
      return Number(n) >= maxPerScope;
    };
    return insertWithinLimit(
      context,
      { key: `${table}:${scope === null ? "-" : `o:${scope}`}`, lockName: "the webhook scope's" },
      full,
      async (trx) => {
        await trx.insertInto(table).values(endpointRow(endpoint)).execute();
      },
    );
  };
}
