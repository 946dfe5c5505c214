import { createFakeClock, runStoreSuites } from "@portcullis/testing";
import { createMemoryStores } from "./memory-stores.js";

/** Each test gets fresh stores on a fake clock that the suites move instead of sleeping. */
runStoreSuites(
  "memory",
  [
    "users",
    "cooldowns",
    "identities",
    "sessions",
    "allowlist",
    "singleUseTokens",
    "activity",
    "passkeys",
    "organizations",
    "apiKeys",
    "auditLog",
  ],
  () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock });
    return { stores, advance: clock.advance, now: clock.now, cleanup: stores.close };
  },
);

/** The system clock, no `advance`: the suites' real-time path, as a store like Redis runs it. */
runStoreSuites(
  "memory, real time",
  ["activity", "cooldowns", "sessions", "allowlist", "singleUseTokens"],
  () => {
    const stores = createMemoryStores();
    return { stores, cleanup: stores.close };
  },
);
