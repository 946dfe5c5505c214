import { z } from "zod";
import type { WebhookStore } from "../ports/webhook-store.js";

/** The validation of the `webhooks` option, with its defaults (docs/webhooks.md). */
export const webhooksOptionsSchema = z
  .object({
    allowPrivateNetworks: z.boolean().default(false),
    retryScale: z.number().min(0.000001).max(1000).default(1),
    pollIntervalMs: z.number().int().min(10).max(600_000).default(1_000),
    gatherMs: z.number().int().min(0).max(10_000).default(100),
    leaseMs: z.number().int().min(100).max(3_600_000).default(30_000),
    timeoutMs: z.number().int().min(100).max(60_000).default(10_000),
    maxEndpoints: z.number().int().min(1).max(1_000).default(20),
    deliver: z.boolean().default(true),
  })
  .optional();

/** The `webhooks` option after validation (undefined: webhooks are off). */
export type ResolvedWebhooksOptions = z.output<typeof webhooksOptionsSchema>;

/** The `webhooks` option as a host writes it (docs/webhooks.md). Needs `stores.webhooks` and `stores.auditLog`. */
export interface WebhooksOptions {
  /**
   * Lets endpoints use `http:` and addresses in private, loopback and link-local ranges (a
   * development machine, a receiver in the same network). Default false: https only, and every
   * address a URL resolves to, at each send, must be public.
   */
  allowPrivateNetworks?: boolean;
  /** A factor on every retry delay (the back-off runs from seconds to hours over 3 days); tests shorten it. Default 1. */
  retryScale?: number;
  /** How often each instance looks for work when nothing woke it (ms). Default 1000. */
  pollIntervalMs?: number;
  /**
   * The shortest time between two rounds that new events start (ms). Default 100. An idle
   * instance sends an event at once; under load the events of the last `gatherMs` go out
   * together, and their deliveries are written in one store write instead of one each. 0: a
   * round for every wake-up.
   */
  gatherMs?: number;
  /** How long an instance holds an endpoint without renewing it; a killed instance's work is taken over after it (ms). Default 30000. */
  leaseMs?: number;
  /** How long one attempt may take, connection to the end of the answer (ms). Default 10000. */
  timeoutMs?: number;
  /** Endpoints one organization (or the deployment) may have; more answer 409 `WEBHOOK_LIMIT_REACHED`. Default 20. */
  maxEndpoints?: number;
  /** Whether this instance delivers (false: it only records; another instance sends). Default true. */
  deliver?: boolean;
}

/** The methods a `WebhookStore` must have (`STORE_METHODS.webhooks`); `createAuth` checks them at start-up. */
export const WEBHOOK_STORE_METHODS = [
  "createEndpoint",
  "findEndpoint",
  "listEndpoints",
  "updateEndpoint",
  "deleteEndpoint",
  "tryLease",
  "releaseLease",
  "advance",
  "recordAttempt",
  "addDelivery",
  "pendingDeliveries",
  "listDeliveries",
  "findDelivery",
  "sweepDeliveries",
] as const satisfies readonly (keyof WebhookStore)[];

/**
 * What the `webhooks` option needs that its own schema cannot see: `stores.webhooks` (endpoints and
 * deliveries) and `stores.auditLog` (the outbox the messages are read from). Each problem names
 * the missing store's option path.
 */
export function webhookStoreProblems(options: {
  webhooks?: unknown;
  stores: { webhooks?: unknown; auditLog?: unknown };
}): { path: string[]; message: string }[] {
  if (options.webhooks === undefined) return [];
  const problems: { path: string[]; message: string }[] = [];
  if (options.stores.webhooks === undefined)
    problems.push({
      path: ["stores", "webhooks"],
      message: "is required while webhooks is configured (a WebhookStore keeps the endpoints and deliveries)",
    });
  if (options.stores.auditLog === undefined)
    problems.push({
      path: ["stores", "auditLog"],
      message: "is required while webhooks is configured (the audit log is what webhooks deliver)",
    });
  return problems;
}
