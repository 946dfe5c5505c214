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
 * Optional (`stores.together`): runs the writes of one change together, for a store package that
 * keeps the users, sessions, allowlist and single-use tokens in one database (one SQL transaction):
 * all of them take effect, or none. `createSqlStores` returns one as `together`. A host gives it
 * only together with the stores it works on, as that package created them: it stands for
 * `stores.users`, `stores.sessions`, `stores.allowlist` and `stores.singleUseTokens`, and the
 * stores `run` hands to its work must act on the same data. A host that wraps or replaces one of
 * them (or takes it from another package) leaves `together` out. The core trusts it as given and
 * compares no store with another.
 *
 * Without it, multi-step changes write to the stores one by one and rely on their fail-safe order
 * alone (docs/security.md, "Fail-safe order of multi-step changes").
 */
export interface StoresTogether {
  /**
   * Runs `work` on stores bound to one transaction and commits when it resolves; when it rejects
   * (or the commit fails) nothing it wrote takes effect, and the rejection is passed on.
   */
  run<T>(work: (stores: ChangeStores) => Promise<T>): Promise<T>;
}
