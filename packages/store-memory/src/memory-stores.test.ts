import {
  createFakeClock,
  runCooldownStoreSuite,
  runIdentityStoreSuite,
  runSessionStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { createMemoryStores } from "./memory-stores.js";

/** Each test gets fresh stores on a fake clock that the suites move instead of sleeping. */
const withFakeClock = <K extends "users" | "cooldowns" | "sessions" | "identities">(kind: K) => {
  return () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock });
    return { store: stores[kind], advance: clock.advance, cleanup: stores.close };
  };
};

/** The system clock, no `advance`: the suites' real-time path, as a store like Redis runs it. */
const withSystemClock = <K extends "cooldowns" | "sessions">(kind: K) => {
  return () => {
    const stores = createMemoryStores();
    return { store: stores[kind], cleanup: stores.close };
  };
};

runUserStoreSuite({ name: "memory", create: withFakeClock("users") });
runCooldownStoreSuite({ name: "memory", create: withFakeClock("cooldowns") });
runIdentityStoreSuite({ name: "memory", create: withFakeClock("identities") });
runSessionStoreSuite({ name: "memory", create: withFakeClock("sessions") });
runCooldownStoreSuite({ name: "memory, real time", create: withSystemClock("cooldowns") });
runSessionStoreSuite({ name: "memory, real time", create: withSystemClock("sessions") });
