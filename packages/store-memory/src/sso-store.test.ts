import { createFakeClock, runSsoStoreSuite } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemorySsoStore } from "./sso-store.js";

runSsoStoreSuite({
  name: "memory",
  create: () => {
    const clock = createFakeClock();
    return {
      store: createMemorySsoStore({ clock }),
      advance: (ms) => clock.advance(ms),
      now: () => clock.now(),
    };
  },
});

/** The memory store's own choices where the port leaves them open. */
describe("createMemorySsoStore", () => {
  it("useSsoAssertion - forgotten once the store's clock reaches its expiresAt", async () => {
    const clock = createFakeClock();
    const store = createMemorySsoStore({ clock });
    const expiresAt = clock.now() + 60_000;
    expect(await store.useSsoAssertion("connection-1", "assertion-1", expiresAt)).toBe(true);
    clock.advance(59_999);
    expect(await store.useSsoAssertion("connection-1", "assertion-1", expiresAt)).toBe(false);
    clock.advance(1);
    expect(await store.useSsoAssertion("connection-1", "assertion-1", expiresAt + 60_000)).toBe(true);
    expect(await store.useSsoAssertion("connection-1", "assertion-1", expiresAt + 60_000)).toBe(false);
  });
});
