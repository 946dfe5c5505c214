import type { Logger } from "@portcullis/core";
import { runCooldownStoreSuite, runSessionStoreSuite, runUserStoreSuite } from "@portcullis/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryStores } from "./memory-stores.js";

function fakeClock() {
  let now = 1_700_000_000_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function fixture<K extends "users" | "cooldowns" | "sessions">(kind: K) {
  return () => {
    const clock = fakeClock();
    const stores = createMemoryStores({ clock });
    return { store: stores[kind], advance: clock.advance, cleanup: stores.close };
  };
}

runUserStoreSuite({ name: "memory", create: fixture("users") });
runCooldownStoreSuite({ name: "memory", create: fixture("cooldowns") });
runSessionStoreSuite({ name: "memory", create: fixture("sessions") });

describe("createMemoryStores", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("sweep - expired entries are removed, so memory stays bounded", async () => {
    const clock = fakeClock();
    const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
    for (let i = 0; i < 10_000; i++) {
      await stores.cooldowns.acquire(`k${i}`, 1_000);
      await stores.sessions.saveToken(
        { purpose: "p", tokenHash: `h${i}`, userId: `u${i}`, expiresAt: 0 },
        1_000,
      );
    }
    expect(stores.cooldowns.size()).toBe(10_000);
    clock.advance(1_001);
    expect(stores.sweep()).toBe(20_000);
    expect(stores.cooldowns.size() + stores.sessions.size()).toBe(0);
  });

  it("createMemoryStores - warns once when NODE_ENV is production", () => {
    vi.stubEnv("NODE_ENV", "production");
    const warn = vi.fn();
    const logger = { debug() {}, info() {}, error() {}, warn } as Logger;
    createMemoryStores({ logger }).close();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[1])).toMatch(/NODE_ENV=production/);
  });
});
