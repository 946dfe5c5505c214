import type { AuthStores } from "@portcullis/core";
import { runAccessTokenAllowlistSuite } from "./access-token-allowlist-suite.js";
import { runActivityStoreSuite } from "./activity-store-suite.js";
import { runApiKeyStoreSuite } from "./api-key-store-suite.js";
import { runAuditLogStoreSuite } from "./audit-log-store-suite.js";
import { runCooldownStoreSuite } from "./cooldown-store-suite.js";
import { runIdentityStoreSuite } from "./identity-store-suite.js";
import { runOrganizationStoreSuite } from "./organization-store-suite.js";
import { runPasskeyStoreSuite } from "./passkey-store-suite.js";
import { runSessionStoreSuite } from "./session-store-suite.js";
import { runSingleUseTokenStoreSuite } from "./single-use-token-store-suite.js";
import type { StoreFixture, StoreSuite } from "./store-fixture.js";
import { runUserStoreSuite } from "./user-store-suite.js";
import { runWebhookStoreSuite } from "./webhook-store-suite.js";

/** Each store's conformance suite, by the store's name in `AuthStores` (and `createMemoryStores`'s, `createSqlStores`'s). */
const STORE_SUITES = {
  users: runUserStoreSuite,
  sessions: runSessionStoreSuite,
  allowlist: runAccessTokenAllowlistSuite,
  singleUseTokens: runSingleUseTokenStoreSuite,
  cooldowns: runCooldownStoreSuite,
  identities: runIdentityStoreSuite,
  activity: runActivityStoreSuite,
  passkeys: runPasskeyStoreSuite,
  organizations: runOrganizationStoreSuite,
  apiKeys: runApiKeyStoreSuite,
  auditLog: runAuditLogStoreSuite,
  webhooks: runWebhookStoreSuite,
};

/** A store that `runStoreSuites` has a conformance suite for. */
export type StoreSuiteKind = keyof typeof STORE_SUITES;

/**
 * What `runStoreSuites` opens for each test: a package's stores (new ones, or under a prefix of
 * the test's own), with the fixture's `advance`, `now` and `cleanup` for all of them.
 */
export interface StoresFixture extends Omit<StoreFixture<unknown>, "store"> {
  stores: Partial<AuthStores>;
}

/**
 * The conformance suite of each of `kinds`, named `name`, each test on the stores `open` makes
 * for it. Every suite is also given the `users`, `sessions`, `organizations` and `joint` of those
 * stores: with `joint`, the allowlist suite checks its joint reads and writes too.
 */
export function runStoreSuites(
  name: string,
  kinds: readonly StoreSuiteKind[],
  open: () => StoresFixture | Promise<StoresFixture>,
): void {
  for (const kind of kinds) {
    const run = STORE_SUITES[kind] as StoreSuite<unknown>;
    run({
      name,
      create: async () => {
        const { stores, ...fixture } = await open();
        const store = stores[kind];
        if (!store) throw new Error(`runStoreSuites: the stores have no ${kind}`);
        const { users, sessions, organizations, joint } = stores;
        return { ...fixture, store, users, sessions, organizations, joint };
      },
    });
  }
}
