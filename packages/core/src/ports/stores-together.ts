import type { AccessTokenAllowlist } from "./access-token-allowlist.js";
import type { SessionStore } from "./session-store.js";
import type { SingleUseTokenStore } from "./single-use-token-store.js";
import type { UserStore } from "./user-store.js";

/** The stores a multi-step change writes, as `StoresTogether.run` hands them to its work. */
export interface ChangeStores {
  users: UserStore;
  sessions: SessionStore;
  allowlist: AccessTokenAllowlist;
  singleUseTokens: SingleUseTokenStore;
}

/**
 * Optional: runs the writes of one change together, where the stores can (one SQL transaction):
 * all of them take effect, or none. `createSqlStores` returns one as `together`.
 *
 * The core uses it only when `covers` is true for each of the configured users, sessions,
 * allowlist and single-use-token stores (they live in one database); otherwise, and without it,
 * multi-step changes rely on their fail-safe order alone (docs/security.md).
 */
export interface StoresTogether {
  /** True when `store` is one of the stores `run` can include in its transaction. */
  covers(store: object): boolean;
  /**
   * Runs `work` on stores bound to one transaction and commits when it resolves; when it rejects
   * (or the commit fails) nothing it wrote takes effect, and the rejection is passed on.
   */
  run<T>(work: (stores: ChangeStores) => Promise<T>): Promise<T>;
}
