import type { AccessTokenAllowlist } from "../ports/access-token-allowlist.js";
import type { ActivityStore } from "../ports/activity-store.js";
import type { ApiKeyStore } from "../ports/api-key-store.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { CooldownStore } from "../ports/cooldown-store.js";
import type { IdentityStore } from "../ports/identity-store.js";
import type { JointStores } from "../ports/joint-stores.js";
import type { OrganizationStore } from "../ports/organization-store.js";
import type { PasskeyStore } from "../ports/passkey-store.js";
import type { SessionStore } from "../ports/session-store.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import type { StoresTogether } from "../ports/stores-together.js";
import type { UserStore } from "../ports/user-store.js";
import type { WebhookStore } from "../ports/webhook-store.js";

/** The ports `createAuth` works with. */
export interface AuthStores {
  /** Where users live: `createMemoryStores().users`, `createSqlStores().users`, or your own `UserStore`. */
  users: UserStore;
  /** Cooldowns and counters (email cooldowns, throttles, per-IP limits). */
  cooldowns: CooldownStore;
  /** Sessions and their refresh-token rotation. */
  sessions: SessionStore;
  /** The access tokens that may still be used, by `jti` (read on every authenticated request). */
  allowlist: AccessTokenAllowlist;
  /** Single-use tokens: reset and verification links, 2FA challenges and codes. */
  singleUseTokens: SingleUseTokenStore;
  /** Links to identity providers; required only with `identityProviders`. */
  identities?: IdentityStore;
  /**
   * Runs the writes of a multi-step change (reset, `setPassword`) in one transaction, for users,
   * sessions, allowlist and single-use tokens kept in one database: `createSqlStores().together`.
   * Optional; give it only with those four stores of the same call, unwrapped, or leave it out.
   */
  together?: StoresTogether;
  /**
   * Reads an access token's entry with its user, writes a new session with its entry, and rotates
   * a session with its entries, each in one round trip, for stores kept side by side:
   * `createSqlStores().joint`, `createRedisStores().joint`. Optional; give it only with the users,
   * sessions and allowlist of the same call, unwrapped (a host that wraps or replaces one of them
   * leaves it out). Without it, the core makes the separate calls.
   */
  joint?: JointStores;
  /**
   * Each user's security events (`GET /activity`), kept `activityRetentionDays`. Every shipped
   * `create*Stores()` has one; without it nothing is recorded and the activity reads empty.
   */
  activity?: ActivityStore;
  /** Passkeys (WebAuthn credentials); required only with `webauthn`. */
  passkeys?: PasskeyStore;
  /** Organizations, members, roles, invitations; required only with `organizations` (sessions then need `setActiveOrganization`). */
  organizations?: OrganizationStore;
  /** API keys (kept as keyed hashes); required only with `apiKeys`. */
  apiKeys?: ApiKeyStore;
  /**
   * The audit log (docs/audit-log.md): every security event in hash chains, kept
   * `auditRetentionDays`. Without it nothing is recorded and the audit-log routes answer 404.
   */
  auditLog?: AuditLogStore;
  /** Webhook endpoints, their deliveries and the workers' leases (docs/webhooks.md); required only with `webhooks`. */
  webhooks?: WebhookStore;
}
