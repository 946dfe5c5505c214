// The OAuthStore conformance tests of the device authorizations (RFC 8628): createOAuthDevice,
// findOAuthDevice and decideOAuthDevice (OAUTH_DEVICE_TESTS); pollOAuthDevice
// (OAUTH_DEVICE_POLL_TESTS).
import type { OAuthDevicePoll, OAuthDeviceRecord, OAuthStore } from "@portcullis/core";
import { expect } from "vitest";
import {
  DEVICE_ENDS,
  NOW,
  newHash,
  newUserId,
  type OAuthTests,
  swapCase,
  T0,
} from "./oauth-store-context.js";
import { concurrently } from "./store-fixture.js";

const ABSENT = { outcome: "absent" } as const;
const PENDING = { outcome: "pending" } as const;
const SLOW_DOWN = { outcome: "slow_down" } as const;

/** The sign-in time the approving users of the tests last signed in at. */
const AUTH_TIME = T0 + 42_000;

/**
 * Expects `poll` to answer the approval of `device` (as stored before the approval) by `userId`.
 * The record's `lastPolledAt` is left open: the last pending poll's, or this poll's `now`.
 */
function expectApproved(poll: OAuthDevicePoll, device: OAuthDeviceRecord, userId: string, now: number) {
  expect(poll.outcome).toBe("approved");
  if (poll.outcome !== "approved") return;
  const { lastPolledAt, ...answered } = poll.device;
  const { lastPolledAt: before, ...stored } = device;
  expect(answered).toEqual({ ...stored, status: "approved", userId, authTime: AUTH_TIME });
  expect([before, now]).toContain(lastPolledAt);
}

/** Approves the pending `device` for a new user at `now`: that user's id. */
async function approve(store: OAuthStore, device: OAuthDeviceRecord, now = NOW) {
  const userId = newUserId();
  const decision = { userId, approve: true, authTime: AUTH_TIME };
  expect(await store.decideOAuthDevice(device.userCodeHash, decision, now)).toBe(true);
  return userId;
}

/** The tests of `createOAuthDevice`, `findOAuthDevice` and `decideOAuthDevice`. */
export const OAUTH_DEVICE_TESTS: OAuthTests = {
  "createOAuthDevice - stores it; findOAuthDevice reads every field back by its user code hash, a copy":
    async ({ store, storedClient, device }) => {
      const { clientId } = await storedClient();
      const made = device(clientId, { scopes: ["profile", "openid"], resources: [], intervalSeconds: 7 });
      const given = structuredClone(made);
      expect(await store.createOAuthDevice(given)).toBe(true);
      given.scopes.push("admin");
      const found = await store.findOAuthDevice(made.userCodeHash, NOW);
      expect(found).toEqual(made);
      found?.resources.push("https://evil.example.com/");
      expect(await store.findOAuthDevice(made.userCodeHash, NOW)).toEqual(made);
    },
  "createOAuthDevice - false when its device or user code hash is taken; the first is kept": async ({
    store,
    storedDevice,
    device,
  }) => {
    const first = await storedDevice();
    const sameDevice = device(first.clientId, { deviceCodeHash: first.deviceCodeHash });
    expect(await store.createOAuthDevice(sameDevice)).toBe(false);
    expect(await store.findOAuthDevice(sameDevice.userCodeHash, NOW)).toBeNull();
    const sameUser = device(first.clientId, { userCodeHash: first.userCodeHash, intervalSeconds: 60 });
    expect(await store.createOAuthDevice(sameUser)).toBe(false);
    expect(await store.pollOAuthDevice(sameUser.deviceCodeHash, NOW)).toEqual(ABSENT);
    expect(await store.findOAuthDevice(first.userCodeHash, NOW)).toEqual(first);
    // Approved and not yet polled, it still holds its hashes.
    const userId = await approve(store, first);
    expect(await store.createOAuthDevice(sameUser)).toBe(false);
    expectApproved(await store.pollOAuthDevice(first.deviceCodeHash, NOW + 1), first, userId, NOW + 1);
  },
  "createOAuthDevice - the hashes are free again once the record is deleted": async ({
    store,
    storedDevice,
  }) => {
    const approved = await storedDevice();
    await approve(store, approved);
    expect((await store.pollOAuthDevice(approved.deviceCodeHash, NOW)).outcome).toBe("approved");
    const expired = await storedDevice();
    expect(await store.pollOAuthDevice(expired.deviceCodeHash, DEVICE_ENDS)).toEqual({ outcome: "expired" });
    for (const gone of [approved, expired]) {
      const again = { ...gone, expiresAt: DEVICE_ENDS + 600_000 };
      expect(await store.createOAuthDevice(structuredClone(again))).toBe(true);
      expect(await store.findOAuthDevice(gone.userCodeHash, NOW)).toEqual(again);
    }
  },
  "createOAuthDevice - 20 at once with one user code hash: exactly one stored": async ({
    store,
    storedClient,
    device,
  }) => {
    const { clientId } = await storedClient();
    const userCodeHash = newHash();
    const made = Array.from({ length: 20 }, () => device(clientId, { userCodeHash }));
    const results = await Promise.all(made.map((one) => store.createOAuthDevice(structuredClone(one))));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.findOAuthDevice(userCodeHash, NOW)).toEqual(made[results.indexOf(true)]);
  },
  "findOAuthDevice - null for an unknown hash (another case too), a decided one, and from expiresAt on":
    async ({ store, storedDevice }) => {
      const pending = await storedDevice();
      expect(await store.findOAuthDevice(newHash(), NOW)).toBeNull();
      expect(await store.findOAuthDevice(swapCase(pending.userCodeHash), NOW)).toBeNull();
      const decision = { userId: newUserId(), approve: true, authTime: AUTH_TIME };
      expect(await store.decideOAuthDevice(swapCase(pending.userCodeHash), decision, NOW)).toBe(false);
      expect(await store.findOAuthDevice(pending.deviceCodeHash, NOW)).toBeNull();
      expect(await store.findOAuthDevice(pending.userCodeHash, DEVICE_ENDS - 1)).toEqual(pending);
      expect(await store.findOAuthDevice(pending.userCodeHash, DEVICE_ENDS)).toBeNull();
      expect(await store.findOAuthDevice(pending.userCodeHash, DEVICE_ENDS + 1)).toBeNull();
      const approved = await storedDevice();
      await approve(store, approved);
      expect(await store.findOAuthDevice(approved.userCodeHash, NOW)).toBeNull();
      const denied = await storedDevice();
      expect(await store.decideOAuthDevice(denied.userCodeHash, { ...decision, approve: false }, NOW)).toBe(
        true,
      );
      expect(await store.findOAuthDevice(denied.userCodeHash, NOW)).toBeNull();
    },
  "decideOAuthDevice - approve: true; the record is approved by that user at that authTime": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice();
    const other = await storedDevice({ clientId: made.clientId });
    const userId = await approve(store, made, DEVICE_ENDS - 1);
    expectApproved(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 1), made, userId, NOW + 1);
    expect(await store.findOAuthDevice(other.userCodeHash, NOW)).toEqual(other);
  },
  "decideOAuthDevice - deny: true; the device's poll is then denied": async ({ store, storedDevice }) => {
    const made = await storedDevice();
    const decision = { userId: newUserId(), approve: false, authTime: AUTH_TIME };
    expect(await store.decideOAuthDevice(made.userCodeHash, decision, NOW)).toBe(true);
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 1)).toEqual({ outcome: "denied" });
  },
  "decideOAuthDevice - false, changing nothing, for an unknown hash, a decided one, an expired one": async ({
    store,
    storedDevice,
  }) => {
    const deny = { userId: newUserId(), approve: false, authTime: AUTH_TIME };
    expect(await store.decideOAuthDevice(newHash(), deny, NOW)).toBe(false);
    const approved = await storedDevice();
    const userId = await approve(store, approved);
    expect(await store.decideOAuthDevice(approved.userCodeHash, deny, NOW + 1)).toBe(false);
    expect(await store.decideOAuthDevice(approved.userCodeHash, { ...deny, approve: true }, NOW + 1)).toBe(
      false,
    );
    expectApproved(await store.pollOAuthDevice(approved.deviceCodeHash, NOW + 2), approved, userId, NOW + 2);
    const expired = await storedDevice();
    expect(await store.decideOAuthDevice(expired.userCodeHash, { ...deny, approve: true }, DEVICE_ENDS)).toBe(
      false,
    );
  },
  "decideOAuthDevice - 20 at once, approving and denying: exactly one true, and its decision holds": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice();
    const decisions = Array.from({ length: 20 }, (_, index) => ({
      userId: newUserId(),
      approve: index % 2 === 1,
      authTime: AUTH_TIME,
    }));
    const results = await Promise.all(
      decisions.map((decision) => store.decideOAuthDevice(made.userCodeHash, decision, NOW)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = decisions[results.indexOf(true)];
    const poll = await store.pollOAuthDevice(made.deviceCodeHash, NOW);
    if (winner?.approve) expectApproved(poll, made, winner.userId, NOW);
    else expect(poll).toEqual({ outcome: "denied" });
  },
};

/** The tests of `pollOAuthDevice`, by outcome. */
export const OAUTH_DEVICE_POLL_TESTS: OAuthTests = {
  "pending: the poll is recorded; slow_down sooner than intervalSeconds after it; at the interval, pending":
    async ({ store, storedDevice }) => {
      const made = await storedDevice({ intervalSeconds: 5 });
      expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW)).toEqual(PENDING);
      expect(await store.findOAuthDevice(made.userCodeHash, NOW)).toEqual({ ...made, lastPolledAt: NOW });
      const early = NOW + 4_999;
      expect(await store.pollOAuthDevice(made.deviceCodeHash, early)).toEqual(SLOW_DOWN);
      const slowed = { ...made, lastPolledAt: early, intervalSeconds: 10 };
      expect(await store.findOAuthDevice(made.userCodeHash, early)).toEqual(slowed);
      expect(await store.pollOAuthDevice(made.deviceCodeHash, early + 10_000)).toEqual(PENDING);
      const polled = { ...slowed, lastPolledAt: early + 10_000 };
      expect(await store.findOAuthDevice(made.userCodeHash, early + 10_000)).toEqual(polled);
    },
  "slow_down raises the interval by 5 s each time; the next polls are judged by the raised interval": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice({ intervalSeconds: 5 });
    const poll = (at: number) => store.pollOAuthDevice(made.deviceCodeHash, at);
    expect(await poll(NOW)).toEqual(PENDING);
    expect(await poll(NOW + 1_000)).toEqual(SLOW_DOWN); // now 10 s
    expect(await poll(NOW + 10_999)).toEqual(SLOW_DOWN); // 9.999 s later: now 15 s
    expect(await poll(NOW + 25_998)).toEqual(SLOW_DOWN); // 14.999 s later: now 20 s
    expect(await poll(NOW + 45_998)).toEqual(PENDING); // 20 s later
    expect(await poll(NOW + 65_998)).toEqual(PENDING); // 20 s later: a pending poll leaves it at 20 s
    const userId = await approve(store, made, NOW + 66_000);
    const polled = { ...made, intervalSeconds: 20, lastPolledAt: NOW + 65_998 };
    expectApproved(await poll(NOW + 66_001), polled, userId, NOW + 66_001);
  },
  "approved: the record with userId and authTime, deleted in the same step (whatever the interval)": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice();
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW)).toEqual(PENDING);
    const userId = await approve(store, made, NOW + 1);
    const polled = { ...made, lastPolledAt: NOW };
    expectApproved(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 2), polled, userId, NOW + 2);
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 10_000)).toEqual(ABSENT);
    expect(await store.findOAuthDevice(made.userCodeHash, NOW + 10_000)).toBeNull();
  },
  "approved, 20 polls at once: exactly one approved, the others absent": async ({ store, storedDevice }) => {
    const made = await storedDevice();
    const userId = await approve(store, made);
    const polls = await concurrently(20, () => store.pollOAuthDevice(made.deviceCodeHash, NOW + 1));
    const approvedAt = polls.findIndex((poll) => poll.outcome === "approved");
    expectApproved(polls[approvedAt] ?? ABSENT, made, userId, NOW + 1);
    expect(polls.filter((poll) => poll.outcome === "absent")).toHaveLength(19);
  },
  "denied: deleted in the same step (whatever the interval); then absent": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice();
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW)).toEqual(PENDING);
    const decision = { userId: newUserId(), approve: false, authTime: AUTH_TIME };
    expect(await store.decideOAuthDevice(made.userCodeHash, decision, NOW + 1)).toBe(true);
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 2)).toEqual({ outcome: "denied" });
    expect(await store.pollOAuthDevice(made.deviceCodeHash, NOW + 10_000)).toEqual(ABSENT);
  },
  "expired from expiresAt on, pending, approved or denied: deleted, then absent": async ({
    store,
    storedDevice,
  }) => {
    const pending = await storedDevice();
    expect(await store.pollOAuthDevice(pending.deviceCodeHash, DEVICE_ENDS - 1)).toEqual(PENDING);
    const approved = await storedDevice();
    await approve(store, approved);
    const denied = await storedDevice();
    const decision = { userId: newUserId(), approve: false, authTime: AUTH_TIME };
    expect(await store.decideOAuthDevice(denied.userCodeHash, decision, NOW)).toBe(true);
    const polls = [
      [pending, DEVICE_ENDS + 10_000],
      [approved, DEVICE_ENDS],
      [denied, DEVICE_ENDS + 1],
    ] as const;
    for (const [made, at] of polls) {
      expect(await store.pollOAuthDevice(made.deviceCodeHash, at)).toEqual({ outcome: "expired" });
      expect(await store.pollOAuthDevice(made.deviceCodeHash, at + 1)).toEqual(ABSENT);
    }
  },
  "absent for a device code hash never stored, a user code hash, or one of another case": async ({
    store,
    storedDevice,
  }) => {
    const made = await storedDevice();
    expect(await store.pollOAuthDevice(newHash(), NOW)).toEqual(ABSENT);
    expect(await store.pollOAuthDevice(made.userCodeHash, NOW)).toEqual(ABSENT);
    expect(await store.pollOAuthDevice(swapCase(made.deviceCodeHash), NOW)).toEqual(ABSENT);
    expect(await store.findOAuthDevice(made.userCodeHash, NOW)).toEqual(made);
  },
};
