import { describe, expect, it } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { redisForFile } from "./test-redis.js";

/**
 * Redis keeps a key's expiry as an instant on its own clock: a key written while that clock ran
 * 2 h ahead keeps 2 h more once it is corrected. The test cannot move the server's clock, so it
 * writes what such a key looks like (its TTL 2 h past its length), as the store would have.
 */
const JUMP_MS = 2 * 3_600_000;

const file = redisForFile();

function stores() {
  const keyPrefix = file.prefix();
  return {
    keyPrefix,
    cooldowns: createRedisStores({ client: file.client, keyPrefix, operationTimeoutMs: 2_000 }).cooldowns,
  };
}

describe("redis cooldowns after the server's clock is corrected", () => {
  it("acquire and remainingMs - a cooldown written 2 h ahead: at most its own length left, and Redis's TTL moved to it", async () => {
    const { keyPrefix, cooldowns } = stores();
    // What `acquire(key, 30_000)` writes, on a clock 2 h ahead.
    const first = await cooldowns.acquire("read", 30_000);
    expect(first.acquired).toBe(true);
    await file.client.pexpire(`${keyPrefix}cd:{read}`, JUMP_MS + 30_000);
    const left = await cooldowns.remainingMs("read");
    expect(left).toBeGreaterThan(25_000);
    expect(left).toBeLessThanOrEqual(30_000);
    expect(await file.client.pttl(`${keyPrefix}cd:{read}`)).toBeLessThanOrEqual(30_000);

    await cooldowns.acquire("taken", 30_000);
    await file.client.pexpire(`${keyPrefix}cd:{taken}`, JUMP_MS + 30_000);
    // A refused call with a shorter ttl never shortens it: its own 30 s, not 1 s.
    const refused = await cooldowns.acquire("taken", 1_000);
    expect(refused.acquired).toBe(false);
    expect(refused.remainingMs).toBeGreaterThan(25_000);
    expect(refused.remainingMs).toBeLessThanOrEqual(30_000);
    expect(await file.client.pttl(`${keyPrefix}cd:{taken}`)).toBeLessThanOrEqual(30_000);
  });

  it("hit - a window opened 2 h ahead: at most windowMs left", async () => {
    const { keyPrefix, cooldowns } = stores();
    expect((await cooldowns.hit("counter", 60_000)).count).toBe(1);
    await file.client.pexpire(`${keyPrefix}ct:{counter}`, JUMP_MS + 60_000);
    const second = await cooldowns.hit("counter", 60_000);
    expect(second.count).toBe(2);
    expect(second.remainingMs).toBeGreaterThan(55_000);
    expect(second.remainingMs).toBeLessThanOrEqual(60_000);
    expect(await file.client.pttl(`${keyPrefix}ct:{counter}`)).toBeLessThanOrEqual(60_000);
  });
});
