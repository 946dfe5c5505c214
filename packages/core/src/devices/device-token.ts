import { timingSafeEqual } from "node:crypto";
import { createKeyedHash, type KeyMaterial } from "../tokens/keys.js";
import { randomToken } from "../tokens/random.js";

/** The accounts a device token names at most: the most recent ones are kept. */
export const DEVICE_ACCOUNTS_MAX = 10;

/** Characters of an account tag: a keyed hash of the user id cut to 132 bits. */
const TAG_LENGTH = 22;
const VERSION = "d1";
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;
const TAG = /^[A-Za-z0-9_-]{22}$/;

/** A browser as its verified device token describes it. */
export interface Device {
  /** 128 random bits, base64url: names the browser's own login budgets. */
  readonly id: string;
  /** The accounts it signed in to or registered, oldest first: keyed hashes, never a user id. */
  readonly tags: readonly string[];
}

/**
 * The signed device token (cookie `device_token`, header `X-Device-Token`): a random device id
 * and the accounts the browser signed in to, as `d1.<device id>.<tag>~<tag>….<mac>`. A tag is an
 * HMAC of the user id (so the token does not tell whom it names); the MAC is an HMAC of the rest.
 * Both keys are derived with HKDF from `secret`: the first secret signs, every one verifies (and
 * tags made under an older one still match), so a rotation keeps browsers known. Verifying needs
 * no store.
 */
export interface DeviceTokens {
  /** The device of a token whose MAC holds under one of the secrets; null for anything else. */
  read(token: string | undefined): Device | null;
  /** Whether `device` signed in to (or registered) the account `userId`. */
  knows(device: Device | null, userId: string): boolean;
  /**
   * The token to hand back after `userId` signed in or registered on `device` (a new device when
   * null): the account moved to the newest place, the oldest dropped past `DEVICE_ACCOUNTS_MAX`.
   */
  remember(device: Device | null, userId: string): string;
  /**
   * The token after a registration that created nothing (the address was taken): a random tag
   * that matches no account, so the token changes exactly as after a real one.
   */
  rememberNobody(device: Device | null): string;
}

export function createDeviceTokens(secrets: readonly KeyMaterial[]): DeviceTokens {
  const accounts = createKeyedHash(secrets, "device account v1");
  const macs = createKeyedHash(secrets, "device token mac v1");
  const tagsOf = (userId: string) => accounts.candidates(userId).map((tag) => tag.slice(0, TAG_LENGTH));

  const sign = (id: string, tags: readonly string[]) => {
    const payload = `${VERSION}.${id}.${tags.join("~")}`;
    return `${payload}.${macs.hash(payload)}`;
  };
  const withTag = (device: Device | null, drop: readonly string[], tag: string) => {
    const kept = (device?.tags ?? []).filter((existing) => !drop.includes(existing));
    return sign(device?.id ?? randomToken(16), [...kept, tag].slice(-DEVICE_ACCOUNTS_MAX));
  };

  return {
    read(token) {
      if (token === undefined || token.length > 1024) return null;
      const parts = token.split(".");
      if (parts.length !== 4) return null;
      const [version, id = "", list = "", mac = ""] = parts;
      const tags = list === "" ? [] : list.split("~");
      if (version !== VERSION || !DEVICE_ID.test(id) || tags.length > DEVICE_ACCOUNTS_MAX) return null;
      if (!tags.every((tag) => TAG.test(tag))) return null;
      const given = Buffer.from(mac);
      const valid = macs
        .candidates(`${version}.${id}.${list}`)
        .some(
          (expected) => expected.length === given.length && timingSafeEqual(Buffer.from(expected), given),
        );
      return valid ? { id, tags } : null;
    },
    knows(device, userId) {
      if (device === null) return false;
      const candidates = tagsOf(userId);
      return device.tags.some((tag) => candidates.includes(tag));
    },
    remember(device, userId) {
      const candidates = tagsOf(userId);
      return withTag(device, candidates, candidates[0] as string);
    },
    rememberNobody(device) {
      return withTag(device, [], randomToken(16).slice(0, TAG_LENGTH));
    },
  };
}
