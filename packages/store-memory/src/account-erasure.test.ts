import { fillAndEraseAccount } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryStores } from "./memory-stores.js";

// After DELETE /me (auth.account.delete) the memory stores keep nothing of the user: the reads
// by user find nothing, and once the other account is deleted too, every map is empty but the
// cooldown that names no account (the address the deleted user asked to move to) and a key's
// request counter.
describe("account erasure: memory", () => {
  it("account.delete - the memory stores keep nothing that names the user", async () => {
    const stores = createMemoryStores({ sweepIntervalMs: 0 });
    const { erased, kept, auth } = await fillAndEraseAccount(stores);
    expect(await stores.users.findByEmail(erased.email)).toBeNull();
    expect(await stores.sessions.listSessions(erased.userId)).toEqual([]);
    expect(await stores.activity.list(erased.userId, { limit: 100 })).toEqual([]);
    expect(await stores.identities.listByUser(erased.userId)).toEqual([]);
    expect(await stores.sessions.listSessions(kept.userId)).toHaveLength(1);
    expect(stores.singleUseTokens.size()).toBeGreaterThan(0);

    await auth.host.deleteUser({}, kept.userId);
    expect(stores.sessions.size()).toBe(0);
    expect(stores.allowlist.size()).toBe(0);
    expect(stores.singleUseTokens.size()).toBe(0);
    expect((stores.users as typeof stores.users & { size(): number }).size()).toBe(0);
    expect(await stores.activity.sweepActivity(Number.MAX_SAFE_INTEGER)).toBe(0);
    // And the deleted API key's request counter, named by the key's lookup id (not the account),
    // which ends with its minute.
    expect(stores.cooldowns.size()).toBe(1);
    expect(stores.apiKeys.size()).toBe(1);
    expect(await stores.cooldowns.remainingMs(`email:email-change:${erased.requestedEmail}`)).toBeGreaterThan(
      0,
    );
    stores.close();
  });
});
