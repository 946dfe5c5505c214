import {
  createFakeClock,
  runAccessTokenAllowlistSuite,
  runActivityStoreSuite,
  runApiKeyStoreSuite,
  runAuditLogStoreSuite,
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runOrganizationStoreSuite,
  runPasskeyStoreSuite,
  runSessionStoreSuite,
  runSingleUseTokenStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { createMemoryStores } from "./memory-stores.js";

type Kind =
  | "users"
  | "cooldowns"
  | "sessions"
  | "allowlist"
  | "singleUseTokens"
  | "identities"
  | "activity"
  | "passkeys"
  | "organizations"
  | "apiKeys"
  | "auditLog";

/** Each test gets fresh stores on a fake clock that the suites move instead of sleeping. */
const withFakeClock = <K extends Kind>(kind: K) => {
  return () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock });
    return { store: stores[kind], advance: clock.advance, now: clock.now, cleanup: stores.close };
  };
};

/** The system clock, no `advance`: the suites' real-time path, as a store like Redis runs it. */
const withSystemClock = <
  K extends Exclude<Kind, "users" | "identities" | "passkeys" | "organizations" | "apiKeys" | "auditLog">,
>(
  kind: K,
) => {
  return () => {
    const stores = createMemoryStores();
    return { store: stores[kind], cleanup: stores.close };
  };
};

runUserStoreSuite({ name: "memory", create: withFakeClock("users") });
runCooldownStoreSuite({ name: "memory", create: withFakeClock("cooldowns") });
runIdentityStoreSuite({ name: "memory", create: withFakeClock("identities") });
runSessionStoreSuite({ name: "memory", create: withFakeClock("sessions") });
runAccessTokenAllowlistSuite({ name: "memory", create: withFakeClock("allowlist") });
runSingleUseTokenStoreSuite({ name: "memory", create: withFakeClock("singleUseTokens") });
runActivityStoreSuite({ name: "memory", create: withFakeClock("activity") });
runActivityStoreSuite({ name: "memory, real time", create: withSystemClock("activity") });
runCooldownStoreSuite({ name: "memory, real time", create: withSystemClock("cooldowns") });
runSessionStoreSuite({ name: "memory, real time", create: withSystemClock("sessions") });
runAccessTokenAllowlistSuite({ name: "memory, real time", create: withSystemClock("allowlist") });
runSingleUseTokenStoreSuite({ name: "memory, real time", create: withSystemClock("singleUseTokens") });
runPasskeyStoreSuite({ name: "memory", create: withFakeClock("passkeys") });
runOrganizationStoreSuite({ name: "memory", create: withFakeClock("organizations") });
runApiKeyStoreSuite({ name: "memory", create: withFakeClock("apiKeys") });
runAuditLogStoreSuite({ name: "memory", create: withFakeClock("auditLog") });
