export {
  createMemoryAccessTokenAllowlist,
  type MemoryAccessTokenAllowlist,
} from "./access-token-allowlist.js";
export { createMemoryActivityStore, type MemoryActivityStore } from "./activity-store.js";
export { createMemoryApiKeyStore, type MemoryApiKeyStore } from "./api-key-store.js";
export {
  createMemoryAuditLogStore,
  type MemoryAuditLogStore,
  type MemoryAuditLogStoreOptions,
} from "./audit-log-store.js";
export { createMemoryCooldownStore, type MemoryCooldownStore } from "./cooldown-store.js";
export { createMemoryIdentityStore } from "./identity-store.js";
export { createMemoryStores, type MemoryStores, type MemoryStoresOptions } from "./memory-stores.js";
export { createMemoryOAuthStore } from "./oauth-store.js";
export { createMemoryOrganizationStore } from "./organization-store.js";
export { createMemoryPasskeyStore } from "./passkey-store.js";
export { createMemoryScimStore, type MemoryScimStoreOptions } from "./scim-store.js";
export { createMemorySessionStore, type MemorySessionStore } from "./session-store.js";
export { createMemorySigningKeyStore } from "./signing-key-store.js";
export {
  createMemorySingleUseTokenStore,
  type MemorySingleUseTokenStore,
} from "./single-use-token-store.js";
export { createMemorySsoStore } from "./sso-store.js";
export { createMemoryUserStore } from "./user-store.js";
export { createMemoryWebhookStore } from "./webhook-store.js";
