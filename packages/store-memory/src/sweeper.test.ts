import type { Logger } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryStores } from "./memory-stores.js";

async function fill(stores: ReturnType<typeof createMemoryStores>, count: number) {
  for (let i = 0; i < count; i++) {
    await stores.cooldowns.acquire(`k${i}`, 1_000);
    await stores.cooldowns.hit(`c${i}`, 1_000);
    await stores.singleUseTokens.saveToken(
      { purpose: "p", tokenHash: `h${i}`, userId: `u${i}`, expiresAt: 0 },
      1_000,
    );
  }
  for (let i = 0; i < count / 10; i++) {
    const session = { id: `s${i}`, userId: `u${i}`, refreshTokenHash: `r${i}`, accessTokenJti: `j${i}` };
    await stores.allowlist.allowAccessToken(
      session.accessTokenJti,
      { userId: session.userId, sessionId: session.id },
      1_000,
    );
    await stores.sessions.createSession(
      { ...session, browser: null, os: null, ip: null, createdAt: 0, lastActiveAt: 0 },
      1_000,
    );
  }
}

describe("createMemoryStores", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.useRealTimers();
  });

  it("sweep - removes every expired entry and index, so memory stays bounded", async () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
    await fill(stores, 10_000);
    expect(stores.cooldowns.size()).toBe(20_000);
    clock.advance(999);
    expect(stores.sweep()).toBe(0);
    clock.advance(1);
    expect(stores.sweep()).toBe(32_000);
    expect(stores.cooldowns.size()).toBe(0);
    expect(stores.sessions.size() + stores.allowlist.size() + stores.singleUseTokens.size()).toBe(0);
  });

  it("sweepIntervalMs - the timer sweeps on its own until close()", async () => {
    vi.useFakeTimers();
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock, sweepIntervalMs: 5_000 });
    await fill(stores, 100);
    clock.advance(1_000);
    vi.advanceTimersByTime(5_000);
    expect(
      stores.cooldowns.size() +
        stores.sessions.size() +
        stores.allowlist.size() +
        stores.singleUseTokens.size(),
    ).toBe(0);
    stores.close();
    await fill(stores, 100);
    clock.advance(1_000);
    vi.advanceTimersByTime(60_000);
    expect(stores.cooldowns.size()).toBe(200);
  });

  it("remainingMs / hit - expired entries are also dropped when read", async () => {
    const clock = createFakeClock();
    const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
    await stores.cooldowns.acquire("k", 1_000);
    await stores.cooldowns.hit("c", 1_000);
    await stores.cooldowns.hit("r", 1_000);
    clock.advance(1_000);
    expect(await stores.cooldowns.remainingMs("k")).toBe(0);
    await stores.cooldowns.refundHit("r");
    expect(stores.cooldowns.size()).toBe(1);
    expect(await stores.cooldowns.hit("c", 1_000)).toEqual({ count: 1, remainingMs: 1_000 });
    expect(stores.cooldowns.size()).toBe(1);
  });

  it("createMemoryStores - warns once with NODE_ENV=production, and not otherwise", () => {
    const warn = vi.fn();
    const logger: Logger = { debug() {}, info() {}, error() {}, warn };
    vi.stubEnv("NODE_ENV", "development");
    createMemoryStores({ logger }).close();
    expect(warn).not.toHaveBeenCalled();
    vi.stubEnv("NODE_ENV", "production");
    createMemoryStores({ logger }).close();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toEqual({ event: "store_memory.production" });
    expect(String(warn.mock.calls[0]?.[1])).toMatch(/lost on every restart.*not shared between processes/);
  });
});
