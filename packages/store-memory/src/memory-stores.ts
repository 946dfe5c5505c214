import {
  type Clock,
  consoleLogger,
  type IdentityStore,
  type JointStores,
  type Logger,
  type OAuthStore,
  type OrganizationStore,
  type PasskeyStore,
  type ScimStore,
  type SigningKeyStore,
  type SsoStore,
  systemClock,
  type UserStore,
  type WebhookStore,
} from "@portcullis/core";
import {
  createMemoryAccessTokenAllowlist,
  type MemoryAccessTokenAllowlist,
} from "./access-token-allowlist.js";
import { createMemoryActivityStore, type MemoryActivityStore } from "./activity-store.js";
import { createMemoryApiKeyStore, type MemoryApiKeyStore } from "./api-key-store.js";
import { createMemoryAuditLogStore, type MemoryAuditLogStore } from "./audit-log-store.js";
import { createMemoryCooldownStore, type MemoryCooldownStore } from "./cooldown-store.js";
import { createMemoryIdentityStore } from "./identity-store.js";
import { createMemoryJointStores } from "./joint-stores.js";
import { createMemoryOAuthStore } from "./oauth-store.js";
import { createMemoryOrganizationStore } from "./organization-store.js";
import { createMemoryPasskeyStore } from "./passkey-store.js";
import { createMemoryScimStore } from "./scim-store.js";
import { createMemorySessionStore, type MemorySessionStore } from "./session-store.js";
import { createMemorySigningKeyStore } from "./signing-key-store.js";
import { createMemorySingleUseTokenStore, type MemorySingleUseTokenStore } from "./single-use-token-store.js";
import { createMemorySsoStore } from "./sso-store.js";
import { createMemoryUserStore } from "./user-store.js";
import { createMemoryWebhookStore } from "./webhook-store.js";

export interface MemoryStoresOptions {
  /** Time source for expiry; tests pass a fake clock. Default: the system clock. */
  clock?: Clock;
  /** How often expired entries are swept, in milliseconds (default 60 000; 0 turns the sweeper off). */
  sweepIntervalMs?: number;
  /** Where the production warning goes. Default: JSON lines on stderr. */
  logger?: Logger;
}

export interface MemoryStores {
  users: UserStore;
  cooldowns: MemoryCooldownStore;
  sessions: MemorySessionStore;
  allowlist: MemoryAccessTokenAllowlist;
  singleUseTokens: MemorySingleUseTokenStore;
  /**
   * `sessions` and `allowlist` written together (`JointStores`): a sign-in stores its session and
   * access token's entry, and a refresh rotates the session and its entries, each in one step. It
   * names those two stores: a host that wraps or replaces either may keep it (the core then makes
   * the separate calls).
   */
  joint: JointStores;
  /** Identity-provider links (for `identityProviders`). */
  identities: IdentityStore;
  /** Each user's activity (security events), kept for the retention `createAuth` writes with. */
  activity: MemoryActivityStore;
  /** Passkeys (for `webauthn`). */
  passkeys: PasskeyStore;
  /** Organizations, their members, custom roles and invitations (for `organizations`). */
  organizations: OrganizationStore;
  /** API keys (for `apiKeys`), with their requests' counters. */
  apiKeys: MemoryApiKeyStore;
  /**
   * The audit log (for `auditLog`): at most 100 000 entries (the oldest go first), swept with the
   * retention its last `sweepAudit` used.
   */
  auditLog: MemoryAuditLogStore;
  /**
   * Webhook endpoints, their deliveries and leases (for `webhooks`); deliveries go when
   * `sweepDeliveries` removes them or with their endpoint.
   */
  webhooks: WebhookStore;
  /** The OAuth / OpenID provider's signing keys (docs/architecture.md). */
  signingKeys: SigningKeyStore;
  /**
   * The OAuth / OpenID provider's clients, grants, consents and device authorizations (for the
   * provider); ended grants and device authorizations are swept as the provider's calls pass
   * their time.
   */
  oauth: OAuthStore;
  /**
   * Enterprise sign-in's connections, claimed and verified domains, and used assertions (for
   * `createSso` of `@portcullis/sso`); a used assertion is forgotten once it has expired.
   */
  sso: SsoStore;
  /**
   * The SCIM directory of each SSO connection: the users and groups its identity provider
   * provisioned (for `createSso({ scim })` of `@portcullis/sso`).
   */
  scim: ScimStore;
  /** Removes every expired entry now; returns how many. */
  sweep(): number;
  /** Stops the sweeper (it never keeps the process alive anyway). */
  close(): void;
}

/**
 * Every store in memory: for development, tests and single-process apps. Everything is lost
 * on restart and nothing is shared between processes, so production apps with several
 * instances use store-redis (and their own database for users).
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core";
 * import { createMemoryStores } from "@portcullis/store-memory";
 *
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET ?? "",
 *   stores: createMemoryStores(),
 *   appOrigin: "http://localhost:3000",
 *   email: { enabled: false },
 * });
 * ```
 */
export function createMemoryStores(options: MemoryStoresOptions = {}): MemoryStores {
  const clock = options.clock ?? systemClock;
  if (process.env.NODE_ENV === "production") {
    (options.logger ?? consoleLogger).warn(
      { event: "store_memory.production" },
      "@portcullis/store-memory is in use with NODE_ENV=production: users, sessions and cooldowns are lost on every restart and are not shared between processes. Use @portcullis/store-redis and a database-backed UserStore.",
    );
  }
  const cooldowns = createMemoryCooldownStore({ clock });
  const sessions = createMemorySessionStore({ clock });
  const allowlist = createMemoryAccessTokenAllowlist({ clock });
  const singleUseTokens = createMemorySingleUseTokenStore({ clock });
  const activity = createMemoryActivityStore({ clock });
  const apiKeys = createMemoryApiKeyStore({ clock });
  const auditLog = createMemoryAuditLogStore({ clock });
  const sweep = () =>
    cooldowns.sweep() +
    sessions.sweep() +
    allowlist.sweep() +
    singleUseTokens.sweep() +
    activity.sweep() +
    apiKeys.sweep() +
    auditLog.sweep();
  const intervalMs = options.sweepIntervalMs ?? 60_000;
  const timer = intervalMs > 0 ? setInterval(sweep, intervalMs) : undefined;
  timer?.unref();
  return {
    users: createMemoryUserStore(),
    cooldowns,
    sessions,
    allowlist,
    joint: createMemoryJointStores(sessions, allowlist),
    singleUseTokens,
    identities: createMemoryIdentityStore(),
    activity,
    passkeys: createMemoryPasskeyStore(),
    organizations: createMemoryOrganizationStore({ clock }),
    apiKeys,
    auditLog,
    webhooks: createMemoryWebhookStore(),
    signingKeys: createMemorySigningKeyStore(),
    oauth: createMemoryOAuthStore(),
    sso: createMemorySsoStore({ clock }),
    scim: createMemoryScimStore({ clock }),
    sweep,
    close: () => clearInterval(timer),
  };
}
