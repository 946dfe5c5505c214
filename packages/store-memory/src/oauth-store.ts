import {
  type OAuthClientPatch,
  type OAuthClientRecord,
  type OAuthConsentRecord,
  type OAuthDevicePoll,
  type OAuthDeviceRecord,
  type OAuthGrantRecord,
  type OAuthStore,
  oauthTombstone,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";

/** The most consents `listOAuthConsents` returns (the port's bound). */
const MAX_CONSENTS = 1_000;

/** How often (by the callers' `now`) the expired grants and device authorizations are swept. */
const SWEEP_EVERY_MS = 60_000;

/**
 * How long past its `expiresAt` a device authorization is kept, so that the device's next poll
 * is answered `expired` rather than `absent`.
 */
const DEVICE_KEPT_MS = 3_600_000;

/** What the store holds: plain maps, each record a copy of what it was given. */
interface OAuthState {
  clients: Map<string, OAuthClientRecord>;
  grants: Map<string, OAuthGrantRecord>;
  /** userId → clientId → consent. */
  consents: Map<string, Map<string, OAuthConsentRecord>>;
  /** deviceCodeHash → device authorization. */
  devices: Map<string, OAuthDeviceRecord>;
  /** userCodeHash → deviceCodeHash. */
  deviceCodes: Map<string, string>;
  /** The `now` of the last sweep; null before the first. */
  sweptAt: number | null;
}

/**
 * Removes the grants ended at `now` and the device authorizations ended an hour before it, at
 * most once a minute of the callers' `now` (at once when `now` went back).
 */
function sweepExpired(state: OAuthState, now: number): void {
  if (state.sweptAt !== null && now >= state.sweptAt && now - state.sweptAt < SWEEP_EVERY_MS) return;
  state.sweptAt = now;
  for (const [grantId, grant] of state.grants) if (grant.expiresAt <= now) state.grants.delete(grantId);
  for (const device of [...state.devices.values()])
    if (device.expiresAt + DEVICE_KEPT_MS <= now) deleteDevice(state, device);
}

function deleteDevice(state: OAuthState, device: OAuthDeviceRecord): void {
  state.devices.delete(device.deviceCodeHash);
  state.deviceCodes.delete(device.userCodeHash);
}

/** The grant stored with `grantId`, revoked or not, unless it has ended at `now` (then forgotten). */
function grantAt(state: OAuthState, grantId: string, now: number): OAuthGrantRecord | undefined {
  sweepExpired(state, now);
  const grant = state.grants.get(grantId);
  if (grant === undefined || grant.expiresAt > now) return grant;
  state.grants.delete(grantId);
  return undefined;
}

/** Deletes what belongs to the client: its grants, consents and device authorizations. */
function deleteClientRecords(state: OAuthState, clientId: string): void {
  for (const [grantId, grant] of state.grants) if (grant.clientId === clientId) state.grants.delete(grantId);
  for (const [userId, consents] of state.consents) {
    consents.delete(clientId);
    if (consents.size === 0) state.consents.delete(userId);
  }
  for (const device of [...state.devices.values()])
    if (device.clientId === clientId) deleteDevice(state, device);
}

/** `a` before `b` in code unit order (the clients' order). */
const byClientId = (a: OAuthClientRecord, b: OAuthClientRecord) =>
  a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0;

function clientMethods(state: OAuthState) {
  return {
    async createOAuthClient(client: OAuthClientRecord) {
      if (state.clients.has(client.clientId)) return false;
      state.clients.set(client.clientId, clonePlain(client));
      return true;
    },
    async getOAuthClient(clientId: string) {
      return clonePlain(state.clients.get(clientId) ?? null);
    },
    async listOAuthClients({ after, limit }: { after?: string; limit: number }) {
      const listed = [...state.clients.values()].filter(
        (client) => after === undefined || client.clientId > after,
      );
      return listed.sort(byClientId).slice(0, limit).map(clonePlain);
    },
    async updateOAuthClient(clientId: string, patch: OAuthClientPatch) {
      const client = state.clients.get(clientId);
      if (client === undefined) return false;
      const changes = Object.entries(clonePlain(patch)).filter(([, value]) => value !== undefined);
      state.clients.set(clientId, { ...client, ...Object.fromEntries(changes) });
      return true;
    },
    async deleteOAuthClient(clientId: string) {
      if (!state.clients.delete(clientId)) return false;
      deleteClientRecords(state, clientId);
      return true;
    },
  } satisfies Partial<OAuthStore>;
}

/** The atomic step of `rotateOAuthRefresh` (no await inside). */
function rotate(state: OAuthState, grantId: string, presented: string, next: string, now: number) {
  const grant = grantAt(state, grantId, now);
  if (grant === undefined || grant.revokedAt !== null) return { outcome: "absent" } as const;
  if (grant.refreshHash !== presented) {
    grant.revokedAt = now;
    return { outcome: "reused" } as const;
  }
  grant.refreshHash = next;
  return { outcome: "rotated", grant: clonePlain(grant) } as const;
}

/** The atomic step of `revokeOAuthGrant`: a live grant revoked, or a tombstone stored in its place. */
function revoke(
  state: OAuthState,
  grantId: string,
  tombstone: { clientId: string; expiresAt: number },
  now: number,
) {
  const grant = grantAt(state, grantId, now);
  if (grant !== undefined) {
    if (grant.revokedAt !== null) return false;
    grant.revokedAt = now;
    return true;
  }
  state.grants.set(grantId, oauthTombstone(grantId, tombstone, now));
  return false;
}

function grantMethods(state: OAuthState) {
  return {
    async createOAuthGrant(grant: OAuthGrantRecord) {
      if (!state.clients.has(grant.clientId)) return false;
      // A grant ended by the new one's creation may be forgotten; any other holds its id.
      if (grantAt(state, grant.grantId, grant.createdAt) !== undefined) return false;
      state.grants.set(grant.grantId, clonePlain(grant));
      return true;
    },
    async getOAuthGrant(grantId: string, now: number) {
      return clonePlain(grantAt(state, grantId, now) ?? null);
    },
    async rotateOAuthRefresh(grantId: string, presentedHash: string, nextHash: string, now: number) {
      return rotate(state, grantId, presentedHash, nextHash, now);
    },
    async revokeOAuthGrant(grantId: string, tombstone: { clientId: string; expiresAt: number }, now: number) {
      return revoke(state, grantId, tombstone, now);
    },
    async revokeUserOAuthGrants(userId: string, now: number, clientId?: string) {
      sweepExpired(state, now);
      let revoked = 0;
      for (const grant of state.grants.values()) {
        const live = grant.revokedAt === null && grant.expiresAt > now;
        if (!live || grant.userId !== userId || (clientId !== undefined && grant.clientId !== clientId))
          continue;
        grant.revokedAt = now;
        revoked++;
      }
      return revoked;
    },
  } satisfies Partial<OAuthStore>;
}

/** Latest `updatedAt` first, ties by client id. */
const newestFirst = (a: OAuthConsentRecord, b: OAuthConsentRecord) =>
  b.updatedAt - a.updatedAt || (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0);

function consentMethods(state: OAuthState) {
  return {
    async saveOAuthConsent(consent: OAuthConsentRecord) {
      const consents = state.consents.get(consent.userId) ?? new Map<string, OAuthConsentRecord>();
      const createdAt = consents.get(consent.clientId)?.createdAt ?? consent.createdAt;
      consents.set(consent.clientId, { ...clonePlain(consent), createdAt });
      state.consents.set(consent.userId, consents);
    },
    async getOAuthConsent(userId: string, clientId: string) {
      return clonePlain(state.consents.get(userId)?.get(clientId) ?? null);
    },
    async listOAuthConsents(userId: string) {
      const consents = [...(state.consents.get(userId)?.values() ?? [])];
      return consents.sort(newestFirst).slice(0, MAX_CONSENTS).map(clonePlain);
    },
    async deleteOAuthConsent(userId: string, clientId: string) {
      const consents = state.consents.get(userId);
      if (!consents?.delete(clientId)) return false;
      if (consents.size === 0) state.consents.delete(userId);
      return true;
    },
  } satisfies Partial<OAuthStore>;
}

/** The pending authorization with this user code hash, unless it has ended at `now`. */
function pendingDevice(state: OAuthState, userCodeHash: string, now: number): OAuthDeviceRecord | undefined {
  sweepExpired(state, now);
  const deviceCodeHash = state.deviceCodes.get(userCodeHash);
  const device = deviceCodeHash === undefined ? undefined : state.devices.get(deviceCodeHash);
  return device?.status === "pending" && device.expiresAt > now ? device : undefined;
}

/** The atomic step of `pollOAuthDevice` (no await inside). */
function poll(state: OAuthState, deviceCodeHash: string, now: number): OAuthDevicePoll {
  sweepExpired(state, now);
  const device = state.devices.get(deviceCodeHash);
  if (device === undefined) return { outcome: "absent" };
  if (device.expiresAt <= now || device.status !== "pending") deleteDevice(state, device);
  if (device.expiresAt <= now) return { outcome: "expired" };
  if (device.status === "approved") return { outcome: "approved", device: clonePlain(device) };
  if (device.status === "denied") return { outcome: "denied" };
  const early = device.lastPolledAt !== null && now - device.lastPolledAt < device.intervalSeconds * 1_000;
  device.lastPolledAt = now;
  if (!early) return { outcome: "pending" };
  device.intervalSeconds += 5;
  return { outcome: "slow_down" };
}

function deviceMethods(state: OAuthState) {
  return {
    async createOAuthDevice(device: OAuthDeviceRecord) {
      if (state.devices.has(device.deviceCodeHash) || state.deviceCodes.has(device.userCodeHash))
        return false;
      state.devices.set(device.deviceCodeHash, clonePlain(device));
      state.deviceCodes.set(device.userCodeHash, device.deviceCodeHash);
      return true;
    },
    async findOAuthDevice(userCodeHash: string, now: number) {
      return clonePlain(pendingDevice(state, userCodeHash, now) ?? null);
    },
    async decideOAuthDevice(
      userCodeHash: string,
      decision: { userId: string; approve: boolean; authTime: number },
      now: number,
    ) {
      const device = pendingDevice(state, userCodeHash, now);
      if (device === undefined) return false;
      device.status = decision.approve ? "approved" : "denied";
      device.userId = decision.userId;
      device.authTime = decision.authTime;
      return true;
    },
    async pollOAuthDevice(deviceCodeHash: string, now: number) {
      return poll(state, deviceCodeHash, now);
    },
  } satisfies Partial<OAuthStore>;
}

/**
 * The OAuth / OpenID provider's clients, grants, consents and device authorizations in memory
 * (one process: every instance of a deployment must share a store, so this one is for
 * development and tests). Each method runs without an await inside, so each is one atomic step:
 * of concurrent rotations, decisions or polls exactly one wins. Records are copied in and out.
 * Ended grants and device authorizations are swept lazily, by the `now` of the calls.
 */
export function createMemoryOAuthStore(): OAuthStore {
  const state: OAuthState = {
    clients: new Map(),
    grants: new Map(),
    consents: new Map(),
    devices: new Map(),
    deviceCodes: new Map(),
    sweptAt: null,
  };
  return {
    ...clientMethods(state),
    ...grantMethods(state),
    ...consentMethods(state),
    ...deviceMethods(state),
  };
}
