// The store of one OAuthStore conformance test, and the clients, grants, consents and device
// authorizations its tests share (oauth-store-suite.ts, oauth-store-grants.ts,
// oauth-store-consents.ts, oauth-store-devices.ts).
import { randomBytes } from "node:crypto";
import type {
  OAuthClientRecord,
  OAuthConsentRecord,
  OAuthDeviceRecord,
  OAuthGrantRecord,
  OAuthStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, storeContext } from "./store-fixture.js";

/** The time the records of a test are made from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** One hour, in milliseconds. */
export const HOUR = 3_600_000;

/** The `now` of most calls: the tests pass every instant, so no clock is moved or waited for. */
export const NOW = T0 + HOUR;

/** When the grants of the tests end (30 days after `T0`). */
export const GRANT_ENDS = T0 + 30 * 24 * HOUR;

/** When the device authorizations of the tests end (10 minutes after `NOW`). */
export const DEVICE_ENDS = NOW + 600_000;

/** A random SHA-256 (base64url), as the provider stores refresh tokens, device codes and user codes. */
export const newHash = () => randomBytes(32).toString("base64url");

/** A random id as the provider mints grant ids: 43 base64url characters. */
export const newGrantId = () => randomBytes(32).toString("base64url");

/** A random client id: 32 lowercase hex characters (sorted alike by every collation). */
export const newClientId = () => randomBytes(16).toString("hex");

/** `text` with the case of each letter swapped: ids and hashes are compared byte for byte. */
export const swapCase = (text: string) =>
  text.replace(/[a-z]/gi, (letter) =>
    letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
  );

/** A random user id. */
export const newUserId = () => `user-${randomBytes(12).toString("hex")}`;

/** Makers of one test: each client is made 1 s after the one before. */
function makers() {
  let ticks = 0;
  const client = (overrides: Partial<OAuthClientRecord> = {}): OAuthClientRecord => ({
    clientId: newClientId(),
    name: "Zoë's CLI ✓",
    secretHash: newHash(),
    redirectUris: ["https://app.example.com/callback", "http://127.0.0.1:8765/cb"],
    grantTypes: ["authorization_code", "refresh_token"],
    scopes: ["openid", "profile", "email", "offline_access"],
    dynamic: false,
    createdAt: T0 + ++ticks * 1_000,
    ...overrides,
  });
  const grant = (clientId: string, overrides: Partial<OAuthGrantRecord> = {}): OAuthGrantRecord => ({
    grantId: newGrantId(),
    clientId,
    userId: newUserId(),
    scopes: ["openid", "offline_access"],
    resources: ["https://api.example.com/", "https://files.example.com/"],
    authTime: T0 - 5 * 60_000,
    refreshHash: newHash(),
    createdAt: T0,
    expiresAt: GRANT_ENDS,
    revokedAt: null,
    ...overrides,
  });
  const device = (clientId: string, overrides: Partial<OAuthDeviceRecord> = {}): OAuthDeviceRecord => ({
    deviceCodeHash: newHash(),
    userCodeHash: newHash(),
    clientId,
    scopes: ["openid", "offline_access"],
    resources: ["https://api.example.com/"],
    status: "pending",
    userId: null,
    authTime: null,
    intervalSeconds: 5,
    lastPolledAt: null,
    expiresAt: DEVICE_ENDS,
    ...overrides,
  });
  const consent = (
    userId: string,
    clientId: string,
    overrides: Partial<OAuthConsentRecord> = {},
  ): OAuthConsentRecord => ({
    userId,
    clientId,
    scopes: ["openid", "profile"],
    createdAt: T0,
    updatedAt: T0,
    ...overrides,
  });
  return { client, grant, device, consent };
}

/**
 * The store of one test (empty), makers of its records, and shortcuts that store what they make
 * (a copy, so the test's record cannot be changed by the store) and check that it was stored:
 * `storedClient`, `storedGrant` (of a new client unless `clientId` is given), `storedDevice`
 * (likewise).
 */
export function oauthContext(fixture: StoreFixture<OAuthStore>) {
  const made = makers();
  const store = fixture.store;
  const storedClient = async (overrides: Partial<OAuthClientRecord> = {}) => {
    const client = made.client(overrides);
    expect(await store.createOAuthClient(structuredClone(client))).toBe(true);
    return client;
  };
  const clientIdOf = async (clientId?: string) => clientId ?? (await storedClient()).clientId;
  const storedGrant = async (overrides: Partial<OAuthGrantRecord> = {}) => {
    const grant = made.grant(await clientIdOf(overrides.clientId), overrides);
    expect(await store.createOAuthGrant(structuredClone(grant))).toBe(true);
    return grant;
  };
  const storedDevice = async (overrides: Partial<OAuthDeviceRecord> = {}) => {
    const device = made.device(await clientIdOf(overrides.clientId), overrides);
    expect(await store.createOAuthDevice(structuredClone(device))).toBe(true);
    return device;
  };
  return { ...storeContext(fixture), ...made, storedClient, storedGrant, storedDevice };
}

export type OAuthContext = ReturnType<typeof oauthContext>;

/** The tests of one describe block of the suite. */
export type OAuthTests = Record<string, (context: OAuthContext) => unknown>;
