import { randomBytes } from "node:crypto";
import type { OAuthDeviceRecord, OAuthGrantRecord, OAuthStore } from "@portcullis/core";
import { runOAuthStoreSuite } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createRedisStores } from "./redis-stores.js";
import { keysUnder, redisForFile } from "./test-redis.js";

// Each test under a prefix of its own on this file's Redis (deleted after the file).
const redis = redisForFile();

runOAuthStoreSuite({
  name: "redis",
  create: () => ({ store: createRedisStores({ client: redis.client, keyPrefix: redis.prefix() }).oauth }),
});

/** The instants of the tests below: fixed, far from Redis's own clock, as the provider's may be. */
const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How long the store keeps a device authorization after its end (oauth-devices.ts). */
const GRACE = 10 * MINUTE;
/** Slack for the time a test takes between a write and the PTTL that reads it. */
const SLACK = 5_000;

const newId = () => randomBytes(16).toString("hex");

/** A store under a prefix of its own, and the keys it writes (all under the `{oauth}` tag). */
function setup() {
  const prefix = redis.prefix();
  const store = createRedisStores({ client: redis.client, keyPrefix: prefix }).oauth;
  const space = `${prefix}{oauth}:`;
  return { prefix, store, space };
}

/** Stores a client (created at `T0`): its id. */
async function storedClient(store: OAuthStore): Promise<string> {
  const clientId = newId();
  const client = {
    clientId,
    name: "CLI",
    secretHash: null,
    redirectUris: ["http://127.0.0.1:8765/cb"],
    grantTypes: ["authorization_code", "refresh_token"],
    scopes: ["openid"],
    dynamic: false,
    createdAt: T0,
  };
  expect(await store.createOAuthClient(client)).toBe(true);
  return clientId;
}

const grantOf = (clientId: string, overrides: Partial<OAuthGrantRecord> = {}): OAuthGrantRecord => ({
  grantId: newId(),
  clientId,
  userId: `user-${newId()}`,
  scopes: ["openid"],
  resources: [],
  authTime: T0,
  refreshHash: newId(),
  createdAt: T0,
  expiresAt: T0 + 30 * DAY,
  revokedAt: null,
  ...overrides,
});

const deviceOf = (clientId: string, overrides: Partial<OAuthDeviceRecord> = {}): OAuthDeviceRecord => ({
  deviceCodeHash: newId(),
  userCodeHash: newId(),
  clientId,
  scopes: ["openid"],
  resources: [],
  status: "pending",
  userId: null,
  authTime: null,
  intervalSeconds: 5,
  lastPolledAt: null,
  expiresAt: T0 + 20 * MINUTE,
  ...overrides,
});

/** Expects the key's PTTL to be within `SLACK` below `ms`. */
async function expectTtl(key: string, ms: number) {
  const left = await redis.client.pttl(key);
  expect(left).toBeLessThanOrEqual(ms);
  expect(left).toBeGreaterThan(ms - SLACK);
}

describe("redis OAuthStore: keys and their lifetimes", () => {
  it("every key is under the {oauth} tag (one cluster slot)", async () => {
    const { prefix, store, space } = setup();
    const clientId = await storedClient(store);
    const grant = grantOf(clientId);
    expect(await store.createOAuthGrant(grant)).toBe(true);
    await store.revokeOAuthGrant(newId(), { clientId, expiresAt: T0 + HOUR }, T0);
    await store.saveOAuthConsent({ userId: "u:1", clientId, scopes: [], createdAt: T0, updatedAt: T0 });
    expect(await store.createOAuthDevice(deviceOf(clientId))).toBe(true);
    const keys = await keysUnder(redis.client, prefix);
    expect(keys.length).toBeGreaterThanOrEqual(10);
    for (const key of keys) expect(key.startsWith(space)).toBe(true);
  });

  it("clients and consents never expire; a grant ends at expiresAt from its createdAt, and keeps that when revoked; a tombstone from now", async () => {
    const { store, space } = setup();
    const clientId = await storedClient(store);
    const userId = `user-${newId()}`;
    await store.saveOAuthConsent({ userId, clientId, scopes: ["openid"], createdAt: T0, updatedAt: T0 });
    const grant = grantOf(clientId, { userId });
    expect(await store.createOAuthGrant(grant)).toBe(true);
    expect(await redis.client.pttl(`${space}c:${clientId}`)).toBe(-1);
    expect(await redis.client.pttl(`${space}clients`)).toBe(-1);
    expect(await redis.client.pttl(`${space}k:${JSON.stringify([userId, clientId])}`)).toBe(-1);
    await expectTtl(`${space}g:${grant.grantId}`, 30 * DAY);
    // The indexes live as long as their longest-lived member.
    await expectTtl(`${space}ug:${userId}`, 30 * DAY);
    await expectTtl(`${space}cg:${clientId}`, 30 * DAY);
    expect(await store.revokeOAuthGrant(grant.grantId, { clientId, expiresAt: T0 + HOUR }, T0 + DAY)).toBe(
      true,
    );
    await expectTtl(`${space}g:${grant.grantId}`, 30 * DAY);
    const tombstone = newId();
    await store.revokeOAuthGrant(tombstone, { clientId, expiresAt: T0 + DAY + HOUR }, T0 + DAY);
    await expectTtl(`${space}g:${tombstone}`, HOUR);
    // A tombstone already past its end is not stored.
    const late = newId();
    await store.revokeOAuthGrant(late, { clientId, expiresAt: T0 }, T0 + DAY);
    expect(await redis.client.exists(`${space}g:${late}`)).toBe(0);
  });

  it("a device authorization is kept a grace after its end: from this process's clock when stored, from each poll's now", async () => {
    const { store, space } = setup();
    const clientId = await storedClient(store);
    // Its end is long past on this process's clock: kept the grace, so that a caller whose clock
    // lags (or is fake) still finds it.
    const lagging = deviceOf(clientId);
    expect(await store.createOAuthDevice(lagging)).toBe(true);
    await expectTtl(`${space}d:${lagging.deviceCodeHash}`, GRACE);
    await expectTtl(`${space}uc:${lagging.userCodeHash}`, GRACE);
    expect(await store.pollOAuthDevice(lagging.deviceCodeHash, T0)).toEqual({ outcome: "pending" });
    await expectTtl(`${space}d:${lagging.deviceCodeHash}`, 20 * MINUTE + GRACE);
    await expectTtl(`${space}uc:${lagging.userCodeHash}`, 20 * MINUTE + GRACE);
    const decision = { userId: "someone", approve: true, authTime: T0 };
    expect(await store.decideOAuthDevice(lagging.userCodeHash, decision, T0 + 10 * MINUTE)).toBe(true);
    await expectTtl(`${space}d:${lagging.deviceCodeHash}`, 10 * MINUTE + GRACE);
    // On this process's clock: its lifetime and the grace.
    const timely = deviceOf(clientId, { expiresAt: Date.now() + HOUR });
    expect(await store.createOAuthDevice(timely)).toBe(true);
    await expectTtl(`${space}d:${timely.deviceCodeHash}`, HOUR + GRACE);
  });
});

describe("redis OAuthStore: indexes", () => {
  it("drop members whose record is gone: at the next grant, device, revocation and listing", async () => {
    const { store, space } = setup();
    const clientId = await storedClient(store);
    const userId = `user-${newId()}`;
    const first = grantOf(clientId, { userId, expiresAt: T0 + HOUR });
    expect(await store.createOAuthGrant(first)).toBe(true);
    await redis.client.del(`${space}g:${first.grantId}`); // as when its TTL ends
    const second = grantOf(clientId, { userId, expiresAt: T0 + 2 * HOUR });
    expect(await store.createOAuthGrant(second)).toBe(true);
    expect(await redis.client.zrange(`${space}ug:${userId}`, "0", "-1")).toEqual([second.grantId]);
    expect(await redis.client.zrange(`${space}cg:${clientId}`, "0", "-1")).toEqual([second.grantId]);
    await redis.client.del(`${space}g:${second.grantId}`);
    expect(await store.revokeUserOAuthGrants(userId, T0)).toBe(0);
    expect(await redis.client.exists(`${space}ug:${userId}`)).toBe(0);

    const device = deviceOf(clientId);
    expect(await store.createOAuthDevice(device)).toBe(true);
    await redis.client.del(`${space}d:${device.deviceCodeHash}`);
    const next = deviceOf(clientId);
    expect(await store.createOAuthDevice(next)).toBe(true);
    expect(await redis.client.zrange(`${space}cd:${clientId}`, "0", "-1")).toEqual([next.deviceCodeHash]);

    await store.saveOAuthConsent({ userId, clientId, scopes: [], createdAt: T0, updatedAt: T0 });
    await redis.client.del(`${space}k:${JSON.stringify([userId, clientId])}`);
    expect(await store.listOAuthConsents(userId)).toEqual([]);
    expect(await redis.client.exists(`${space}uk:${userId}`)).toBe(0);
  });

  it("a grant id stored again after its end reaches only its new user's and client's indexes", async () => {
    const { store } = setup();
    const [oldClient, newClient] = [await storedClient(store), await storedClient(store)];
    const ended = grantOf(oldClient, { expiresAt: T0 + HOUR });
    expect(await store.createOAuthGrant(ended)).toBe(true);
    const again = grantOf(newClient, { grantId: ended.grantId, createdAt: T0 + HOUR, expiresAt: T0 + DAY });
    expect(await store.createOAuthGrant(again)).toBe(true);
    const now = T0 + 2 * HOUR;
    expect(await store.revokeUserOAuthGrants(ended.userId ?? "", now)).toBe(0);
    expect(await store.deleteOAuthClient(oldClient)).toBe(true);
    expect(await store.getOAuthGrant(again.grantId, now)).toEqual(again);
    expect(await store.revokeUserOAuthGrants(again.userId ?? "", now)).toBe(1);
  });
});
