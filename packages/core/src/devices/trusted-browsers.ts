import { AuthError, guardPort } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { SingleUseTokenStore, TokenRecord } from "../ports/single-use-token-store.js";
import type { UserRecord } from "../ports/user-store.js";
import { TRUSTED_BROWSER_PURPOSE } from "../tokens/purposes.js";
import { hashToken } from "../tokens/random.js";
import type { DeviceTokens } from "./device-token.js";

/** What trusting a browser needs. */
export interface TrustedBrowserDeps {
  singleUseTokens: SingleUseTokenStore;
  devices: DeviceTokens;
  clock: Clock;
  logger: Logger;
  options: { twoFactor: { trustBrowserDays: number } };
}

/** A trusted browser as `GET /2fa/trusted-browsers` shows it. */
export interface TrustedBrowserInfo {
  /** Names it for `DELETE /2fa/trusted-browsers/:id`. */
  id: string;
  browser: string | null;
  os: string | null;
  /** When the second-factor step trusted it (ISO 8601). */
  createdAt: string;
  /** When a sign-in last skipped the second factor in it, or its creation (ISO 8601). */
  lastUsedAt: string;
  /** When the trust ends unless something ends it sooner (ISO 8601). */
  expiresAt: string;
  /** True for the browser that asked. */
  current: boolean;
}

const DAY_MS = 24 * 3600 * 1000;

/** The key of the trust of `userId` in the browser `deviceId`: a hash, never the device id itself. */
const trustKey = (userId: string, deviceId: string) => hashToken(`trusted-browser:${userId}:${deviceId}`);

/**
 * What the trust was given for: the password and the 2FA settings as they were (a hash). A
 * password change or reset, and any change of the 2FA methods, the preferred method or the TOTP
 * secret, makes every trust of the account void, even one a concurrent sign-in wrote back.
 */
export function trustStamp(user: UserRecord): string {
  const { methods, preferredMethod, totpSecretEncrypted } = user.twoFactor;
  return hashToken(
    `trust-stamp:${JSON.stringify([user.passwordHash, methods, preferredMethod, totpSecretEncrypted])}`,
  );
}

/** Whether trusted browsers are on: a positive `trustBrowserDays` and a store that lists tokens. */
const enabled = (deps: TrustedBrowserDeps) =>
  deps.options.twoFactor.trustBrowserDays > 0 && deps.singleUseTokens.listUserTokens !== undefined;

/** The user's trusts that still hold: not expired, given for the account as it is now. */
async function liveTrusts(deps: TrustedBrowserDeps, user: UserRecord): Promise<TokenRecord[]> {
  const list = deps.singleUseTokens.listUserTokens;
  if (!enabled(deps) || list === undefined) return [];
  const records = await guardPort("DATABASE_FAILURE", () =>
    list.call(deps.singleUseTokens, user.id, TRUSTED_BROWSER_PURPOSE),
  );
  const now = deps.clock.now();
  const stamp = trustStamp(user);
  return records.filter(
    (record) => record.userId === user.id && record.expiresAt > now && record.data?.stamp === stamp,
  );
}

/**
 * Trusts the browser of `deviceToken` (the device token the sign-in just handed back) for
 * `user` for `trustBrowserDays`. A failure is logged and leaves the browser untrusted: the
 * sign-in itself already succeeded.
 */
export async function trustBrowser(
  deps: TrustedBrowserDeps,
  user: UserRecord,
  deviceToken: string,
  described: { browser: string | null; os: string | null },
): Promise<void> {
  const device = deps.devices.read(deviceToken);
  if (!enabled(deps) || device === null) return;
  const now = deps.clock.now();
  const ttlMs = deps.options.twoFactor.trustBrowserDays * DAY_MS;
  const record: TokenRecord = {
    purpose: TRUSTED_BROWSER_PURPOSE,
    tokenHash: trustKey(user.id, device.id),
    userId: user.id,
    expiresAt: now + ttlMs,
    data: { ...described, since: now, lastUsedAt: now, stamp: trustStamp(user) },
  };
  try {
    await deps.singleUseTokens.saveToken(record, ttlMs);
  } catch (error) {
    deps.logger.error(
      { event: "two_factor.trust_failed", userId: user.id, err: String(error) },
      "could not trust the browser",
    );
  }
}

/**
 * Whether the browser of `deviceToken` is trusted by `user`: its device token names the account,
 * and a live trust of this account and this device id is in the store. A hit records its use.
 * A store that fails answers false (the second factor is asked for, never skipped).
 */
export async function isTrustedBrowser(
  deps: TrustedBrowserDeps,
  user: UserRecord,
  deviceToken: string | undefined,
): Promise<boolean> {
  const device = deps.devices.read(deviceToken);
  if (!enabled(deps) || device === null || !deps.devices.knows(device, user.id)) return false;
  const key = trustKey(user.id, device.id);
  try {
    const trust = (await liveTrusts(deps, user)).find((record) => record.tokenHash === key);
    if (trust === undefined) return false;
    const now = deps.clock.now();
    await deps.singleUseTokens.saveToken(
      { ...trust, data: { ...trust.data, lastUsedAt: now } },
      trust.expiresAt - now,
    );
    return true;
  } catch (error) {
    deps.logger.warn(
      { event: "two_factor.trust_unreadable", userId: user.id, err: String(error) },
      "could not read the trusted browsers; asking for the second factor",
    );
    return false;
  }
}

/** The user's trusted browsers, most recently used first; `current` marks the one of `deviceToken`. */
export async function listTrustedBrowsers(
  deps: TrustedBrowserDeps,
  user: UserRecord,
  deviceToken: string | undefined,
): Promise<TrustedBrowserInfo[]> {
  const device = deps.devices.read(deviceToken);
  const mine = device === null ? null : trustKey(user.id, device.id);
  const iso = (value: unknown) => new Date(typeof value === "number" ? value : 0).toISOString();
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return (await liveTrusts(deps, user))
    .sort((a, b) => Number(b.data?.lastUsedAt ?? 0) - Number(a.data?.lastUsedAt ?? 0))
    .map((record) => ({
      id: record.tokenHash,
      browser: text(record.data?.browser),
      os: text(record.data?.os),
      createdAt: iso(record.data?.since),
      lastUsedAt: iso(record.data?.lastUsedAt),
      expiresAt: iso(record.expiresAt),
      current: record.tokenHash === mine,
    }));
}

/**
 * Ends the user's trust in one browser (`id` from the list; `NOT_FOUND` when it is not one of
 * the user's) or, without `id`, in every browser. Returns how many trusts ended.
 */
export async function forgetTrustedBrowsers(
  deps: Pick<TrustedBrowserDeps, "singleUseTokens">,
  user: Pick<UserRecord, "id">,
  id?: string,
): Promise<number> {
  const store = deps.singleUseTokens;
  if (id === undefined) {
    return guardPort("DATABASE_FAILURE", () => store.deleteUserTokens(user.id, TRUSTED_BROWSER_PURPOSE));
  }
  const list = store.listUserTokens;
  const records =
    list === undefined
      ? []
      : await guardPort("DATABASE_FAILURE", () => list.call(store, user.id, TRUSTED_BROWSER_PURPOSE));
  if (!records.some((record) => record.tokenHash === id && record.userId === user.id)) {
    throw new AuthError("NOT_FOUND");
  }
  await guardPort("DATABASE_FAILURE", () => store.consumeToken(TRUSTED_BROWSER_PURPOSE, id));
  return 1;
}
