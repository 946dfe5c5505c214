import type { OAuthClientRecord, OAuthDeviceRecord, OAuthGrantRecord } from "@portcullis/core";
import { runOAuthStoreSuite } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryStores } from "./memory-stores.js";
import { createMemoryOAuthStore } from "./oauth-store.js";

runOAuthStoreSuite({ name: "memory", create: () => ({ store: createMemoryOAuthStore() }) });

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

const client: OAuthClientRecord = {
  clientId: "client-1",
  name: "CLI",
  secretHash: null,
  redirectUris: [],
  grantTypes: ["urn:ietf:params:oauth:grant-type:device_code"],
  scopes: ["openid"],
  dynamic: false,
  createdAt: T0,
};

const grant: OAuthGrantRecord = {
  grantId: "grant-1",
  clientId: client.clientId,
  userId: "user-1",
  scopes: ["openid"],
  resources: [],
  authTime: T0,
  refreshHash: "hash-1",
  createdAt: T0,
  expiresAt: T0 + HOUR,
  revokedAt: null,
};

const device: OAuthDeviceRecord = {
  deviceCodeHash: "device-1",
  userCodeHash: "user-code-1",
  clientId: client.clientId,
  scopes: ["openid"],
  resources: [],
  status: "pending",
  userId: null,
  authTime: null,
  intervalSeconds: 5,
  lastPolledAt: null,
  expiresAt: T0 + 600_000,
};

/** The memory store's own choices where the port leaves them open. */
describe("createMemoryOAuthStore", () => {
  it("createOAuthGrant - the id of a grant ended at the new one's createdAt is free again", async () => {
    const store = createMemoryOAuthStore();
    await store.createOAuthClient(client);
    expect(await store.createOAuthGrant(grant)).toBe(true);
    expect(await store.createOAuthGrant({ ...grant, createdAt: grant.expiresAt - 1 })).toBe(false);
    const next = { ...grant, createdAt: grant.expiresAt, expiresAt: grant.expiresAt + HOUR };
    expect(await store.createOAuthGrant(next)).toBe(true);
    expect(await store.getOAuthGrant(grant.grantId, next.createdAt)).toEqual(next);
  });

  it("pollOAuthDevice - an ended authorization answers expired for an hour, then it is swept", async () => {
    const store = createMemoryOAuthStore();
    await store.createOAuthClient(client);
    await store.createOAuthDevice(device);
    await store.createOAuthDevice({ ...device, deviceCodeHash: "device-2", userCodeHash: "user-code-2" });
    expect(await store.pollOAuthDevice("device-1", device.expiresAt + HOUR - 1)).toEqual({
      outcome: "expired",
    });
    expect(await store.pollOAuthDevice("device-1", device.expiresAt + HOUR)).toEqual({ outcome: "absent" });
    // The next sweep, a minute later, removes the other one, which was never polled, and frees its user code.
    const later = device.expiresAt + HOUR + 60_000;
    expect(await store.findOAuthDevice("user-code-1", later)).toBeNull();
    expect(await store.pollOAuthDevice("device-2", later)).toEqual({ outcome: "absent" });
    const reused = {
      ...device,
      deviceCodeHash: "device-3",
      userCodeHash: "user-code-2",
      expiresAt: later + 600_000,
    };
    expect(await store.createOAuthDevice(reused)).toBe(true);
    expect(await store.findOAuthDevice("user-code-2", later)).toEqual(reused);
  });

  it("createMemoryStores - has an OAuth store", async () => {
    const stores = createMemoryStores({ sweepIntervalMs: 0 });
    expect(await stores.oauth.createOAuthClient(client)).toBe(true);
    expect(await stores.oauth.getOAuthClient(client.clientId)).toEqual(client);
    stores.close();
  });
});
