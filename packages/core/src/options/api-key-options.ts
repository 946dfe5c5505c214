import { z } from "zod";

/** The validation of the `apiKeys` option, with its defaults (docs/api-keys.md). */
export const apiKeysOptionsSchema = z
  .object({
    requestsPerMinute: z.number().int().min(1).max(1_000_000).default(600),
    maxPerOwner: z.number().int().min(1).max(10_000).default(100),
    maxExpiresInDays: z.number().int().min(1).max(3650).optional(),
  })
  .optional();

/** The `apiKeys` option after validation (undefined: API keys are off). */
export type ResolvedApiKeysOptions = z.output<typeof apiKeysOptionsSchema>;

/** The `apiKeys` option as a host writes it (docs/api-keys.md). */
export interface ApiKeysOptions {
  /**
   * Requests one key may make per minute (a fixed window in the cooldown store, shared by every
   * instance); more answer 429 `API_KEY_RATE_LIMITED` with `Retry-After`. Default 600.
   */
  requestsPerMinute?: number;
  /** Keys one user, or one organization, may have at once; more answer 409 `API_KEY_LIMIT_REACHED`. Default 100. */
  maxPerOwner?: number;
  /** The longest `expiresInDays` a new key may have; unset: keys may also never expire. */
  maxExpiresInDays?: number;
}
