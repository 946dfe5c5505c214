import type { KeyedHash } from "../tokens/keys.js";

/** An entry of a sign-in's `allowCredentials`, as the options name a passkey. */
export interface AllowedCredential {
  id: string;
  transports: string[];
}

/**
 * The kinds of authenticator a stand-in imitates: a credential id's length in bytes and the
 * transports the browser reports for it (sorted, as `getTransports()` gives them). Platform and
 * synced passkeys (16 and 20 bytes), Windows Hello (32), security keys (48, 64): a real account's
 * ids vary as these do.
 */
const PROFILES: readonly { bytes: number; transports: readonly string[] }[] = [
  { bytes: 16, transports: ["hybrid", "internal"] },
  { bytes: 16, transports: ["internal"] },
  { bytes: 20, transports: ["hybrid", "internal"] },
  { bytes: 20, transports: ["internal"] },
  { bytes: 32, transports: ["internal"] },
  { bytes: 32, transports: ["hybrid", "internal"] },
  { bytes: 48, transports: ["nfc", "usb"] },
  { bytes: 64, transports: ["nfc", "usb"] },
  { bytes: 64, transports: ["usb"] },
];

/** `count` bytes derived from `label` of `address`, under the decoy key. */
function derived(decoys: KeyedHash, address: string, label: string, count: number): Buffer {
  const parts: Buffer[] = [];
  for (let block = 0; parts.length * 32 < count; block += 1)
    parts.push(Buffer.from(decoys.hash(`${label}:${block}:${address}`), "base64url"));
  return Buffer.concat(parts).subarray(0, count);
}

/**
 * The `allowCredentials` of an address without passkeys (or without an account): one or
 * sometimes two entries of the same fields as real ones (an id and transports), whose id lengths
 * and transports follow the authenticators real ids come from. Derived from the address under a
 * key (the same address always gets the same entries, another instance with the same secret too),
 * so asking twice tells nothing either.
 */
export function standInCredentials(decoys: KeyedHash, address: string): AllowedCredential[] {
  const seed = derived(decoys, address, "shape", 3);
  // About one address in five without passkeys shows two: as accounts with a second passkey do.
  const count = (seed[0] as number) < 52 ? 2 : 1;
  return Array.from({ length: count }, (_, index) => {
    const profile = PROFILES[(seed[index + 1] as number) % PROFILES.length] as (typeof PROFILES)[number];
    return {
      id: derived(decoys, address, `id ${index}`, profile.bytes).toString("base64url"),
      transports: [...profile.transports],
    };
  });
}
