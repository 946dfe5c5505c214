// The `auth.apiKeys` group of the `Auth` object (docs/api-keys.md). Re-exported from auth.ts.
import type { ApiKeyView } from "../api-keys/views.js";
import type { Call } from "../model.js";

/** `POST /api-keys`'s body (docs/api-keys.md). */
export interface CreateApiKeyInput {
  /** 1 to 100 characters. */
  name: string;
  /** Days until the key stops working (1 to 3650, at most `apiKeys.maxExpiresInDays`); absent: never. */
  expiresInDays?: number | undefined;
  /** An organization's key: the organization it acts for (needs `api-key:manage` there). */
  organizationId?: string | undefined;
  /** An organization's key: what it may do, each one the creator holds. Only with `organizationId`. */
  permissions?: string[] | undefined;
}

/**
 * API keys for scripts, CI and integrations (docs/api-keys.md): a user's own, or an organization's.
 * Every method takes the signed-in caller's `call.principal` (an access token's: an API key's
 * principal is refused with `API_KEY_NOT_ALLOWED`) and rejects with `NOT_FOUND` when `apiKeys` is
 * not configured. The events name the caller as `actor`. Each reads `call.request`.
 */
export interface ApiKeyApi {
  /** True when `apiKeys` (and `stores.apiKeys`) is configured. */
  readonly enabled: boolean;
  /**
   * A new key, with `call.stepUpToken`. `key` is the only time the key is shown: the store keeps
   * its keyed hash.
   * @throws `USE_CASE_ERRORS.apiKeys.create`'s codes (use-case-errors.ts)
   */
  create(call: Call, input: CreateApiKeyInput): Promise<{ apiKey: ApiKeyView; key: string }>;
  /**
   * The caller's own keys, or with `organizationId` the organization's (`api-key:manage`).
   * @throws `USE_CASE_ERRORS.apiKeys.list`'s codes (use-case-errors.ts)
   */
  list(call: Call, input?: { organizationId?: string | undefined }): Promise<{ items: ApiKeyView[] }>;
  /**
   * Deletes one of the caller's keys, or an organization's (`api-key:manage`); refused at once
   * everywhere.
   * @throws `USE_CASE_ERRORS.apiKeys.delete`'s codes (use-case-errors.ts)
   */
  delete(call: Call, id: string): Promise<{ success: true }>;
}
