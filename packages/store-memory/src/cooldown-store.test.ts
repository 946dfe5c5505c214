import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryCooldownStore } from "./cooldown-store.js";

describe("createMemoryCooldownStore - a clock set back", () => {
  it("acquire - a running cooldown keeps what it had left, then ends on time", async () => {
    const clock = createFakeClock();
    const store = createMemoryCooldownStore({ clock });
    const start = clock.now();
    expect(await store.acquire("k", 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
    clock.set(start + 10_000);
    expect(await store.remainingMs("k")).toBe(50_000);
    // Set back an hour: 50 s left, as the store last read (not 60 s, not an hour more).
    clock.set(start + 10_000 - 3_600_000);
    expect(await store.remainingMs("k")).toBe(50_000);
    expect(await store.acquire("k", 1_000)).toEqual({ acquired: false, remainingMs: 50_000 });
    clock.set(start + 10_000 - 3_600_000 + 49_000);
    expect(await store.remainingMs("k")).toBe(1_000);
    clock.set(start + 10_000 - 3_600_000 + 50_000);
    expect(await store.remainingMs("k")).toBe(0);
    expect(await store.acquire("k", 60_000)).toEqual({ acquired: true, remainingMs: 60_000 });
  });

  it("remainingMs - time the store did not read before a step back is not counted: at most the length left", async () => {
    const clock = createFakeClock();
    const store = createMemoryCooldownStore({ clock });
    const start = clock.now();
    await store.acquire("k", 60_000);
    clock.set(start + 10_000 - 3_600_000); // 10 s passed unread, then set back an hour
    expect(await store.remainingMs("k")).toBe(60_000);
  });

  it("sweep - removes what ended on the corrected time, keeps what runs", async () => {
    const clock = createFakeClock();
    const store = createMemoryCooldownStore({ clock });
    const start = clock.now();
    await store.acquire("short", 5_000);
    await store.acquire("long", 60_000);
    clock.set(start - 3_600_000); // back an hour: nothing has ended
    expect(store.sweep()).toBe(0);
    clock.set(start - 3_600_000 + 5_000);
    expect(store.sweep()).toBe(1);
    expect(await store.remainingMs("long")).toBe(55_000);
    expect(store.size()).toBe(1);
  });
});
