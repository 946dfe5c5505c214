import type { webcrypto } from "node:crypto";
import type { Clock, SigningKeyRecord, SigningKeyStore } from "@portcullis/core";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { createKeySealer, type KeyMaterial } from "./sealed-key.js";

type CryptoKey = webcrypto.CryptoKey;

/** The JWS algorithms the provider signs with: ECDSA P-256 (default) or Ed25519. */
export type SigningAlgorithm = "ES256" | "EdDSA";

export interface SigningKeyRingOptions {
  /** Where the keys live, shared by every instance of the deployment. */
  store: SigningKeyStore;
  /** The host's `secret` (a list when rotating it: the first seals new keys, every one opens). */
  secret: KeyMaterial | readonly KeyMaterial[];
  /**
   * The longest lifetime, in seconds, of any token the keys sign (access and ID tokens): a key
   * stays in the JWKS that long after the next one took over, so what it signed verifies until it
   * expires.
   */
  tokenLifetimeSeconds: number;
  /** Default `ES256`. */
  algorithm?: SigningAlgorithm;
  /** How long a key signs before the next takes over, in days. Default 30. */
  rotationDays?: number;
  /**
   * How long a new key is published before it signs, in seconds, so relying parties that cache
   * the JWKS hold it before the first token it signed reaches them. Default 3600. The first key
   * of a deployment signs at once (nobody caches an empty JWKS).
   */
  publishAheadSeconds?: number;
  /**
   * How long an instance keeps the store's listing before reading it again, in seconds. Default
   * 60; at most `publishAheadSeconds`, so every instance reads a new key before it signs.
   */
  refreshSeconds?: number;
  clock?: Clock;
}

/** The key that signs now. */
export interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
}

/** The provider's signing keys (docs/oauth-provider.md, "Signing keys"). */
export interface SigningKeyRing {
  /** The key that signs now: made on first use, and the next one made when the current one is due. */
  signingKey(): Promise<SigningKey>;
  /**
   * The public keys a relying party needs: the one that signs, the next one once made, and each
   * earlier one until the tokens it may have signed have expired. The same object while the same
   * keys are published (verifiers cache their imported keys by it): read it, never change it.
   */
  jwks(): Promise<{ keys: JWK[] }>;
  /** Deletes the keys that no unexpired token can name; resolves to how many. */
  prune(): Promise<number>;
}

const DAY_MS = 24 * 3600 * 1000;

/** When each key stops signing: when the next one (by `activatesAt`) has activated; undefined while it signs or waits. */
function retirements(keys: readonly SigningKeyRecord[], now: number): Map<string, number> {
  const byActivation = [...keys].sort((a, b) => a.activatesAt - b.activatesAt || a.createdAt - b.createdAt);
  const retired = new Map<string, number>();
  for (const [index, key] of byActivation.entries()) {
    const next = byActivation[index + 1];
    if (next && next.activatesAt <= now) retired.set(key.kid, next.activatesAt);
  }
  return retired;
}

/** The keys of `keys` that a relying party may need at `now` (`SigningKeyRing.jwks`). */
function published(keys: readonly SigningKeyRecord[], now: number, lifetimeMs: number): SigningKeyRecord[] {
  const retired = retirements(keys, now);
  return keys.filter((key) => {
    const retiredAt = retired.get(key.kid);
    return retiredAt === undefined || retiredAt + lifetimeMs > now;
  });
}

/** The public JWK of a key, as the JWKS publishes it. */
const publicJwkOf = (key: SigningKeyRecord): JWK => ({
  ...(JSON.parse(key.publicJwk) as JWK),
  kid: key.kid,
  alg: key.alg,
  use: "sig",
});

/** The key that signs at `now`: the latest activated one. */
const activeAt = (keys: readonly SigningKeyRecord[], now: number) =>
  keys
    .filter((key) => key.activatesAt <= now)
    .sort((a, b) => b.activatesAt - a.activatesAt || b.createdAt - a.createdAt)[0];

/** A new key pair: the public JWK, the private JWK sealed, the RFC 7638 thumbprint as `kid`. */
async function newKey(
  algorithm: SigningAlgorithm,
  seal: (plain: string) => string,
  createdAt: number,
  activatesAt: number,
): Promise<SigningKeyRecord> {
  const pair = await generateKeyPair(algorithm, {
    extractable: true,
    ...(algorithm === "EdDSA" ? { crv: "Ed25519" } : {}),
  });
  const publicJwk = await exportJWK(pair.publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(pair.privateKey);
  return {
    kid,
    alg: algorithm,
    publicJwk: JSON.stringify(publicJwk),
    sealedPrivateKey: seal(JSON.stringify(privateJwk)),
    createdAt,
    activatesAt,
  };
}

/**
 * The provider's signing keys over a `SigningKeyStore`: asymmetric keys (ES256 or EdDSA) whose
 * private halves are kept sealed under the host's secret, rotated every `rotationDays`. The next
 * key is made `publishAheadSeconds` before it takes over and published from then on; a retired
 * key stays published for `tokenLifetimeSeconds` after that. Of instances that find a key due at
 * once, the store lets one add it (`addSigningKey`'s check), and every instance signs with the
 * same key from its activation on. Each instance reads the listing at most every
 * `refreshSeconds` and opens each private key once.
 * @example
 * ```ts
 * import { createSigningKeyRing } from "@portcullis/oauth-provider";
 * import { createMemoryStores } from "@portcullis/store-memory";
 *
 * const ring = createSigningKeyRing({
 *   store: createMemoryStores().signingKeys,
 *   secret: process.env.AUTH_SECRET ?? "",
 *   tokenLifetimeSeconds: 3600,
 * });
 * const { keys } = await ring.jwks(); // what <prefix>/oauth2/jwks publishes
 * ```
 */
export function createSigningKeyRing(options: SigningKeyRingOptions): SigningKeyRing {
  const { store } = options;
  const clock = options.clock ?? { now: () => Date.now() };
  const algorithm = options.algorithm ?? "ES256";
  const rotationMs = (options.rotationDays ?? 30) * DAY_MS;
  const aheadMs = (options.publishAheadSeconds ?? 3600) * 1000;
  const lifetimeMs = options.tokenLifetimeSeconds * 1000;
  const refreshMs = Math.min((options.refreshSeconds ?? 60) * 1000, aheadMs);
  if (!(rotationMs > aheadMs)) throw new RangeError("rotationDays must be longer than publishAheadSeconds");
  if (!(lifetimeMs > 0)) throw new RangeError("tokenLifetimeSeconds must be positive");
  const secrets =
    typeof options.secret === "string" || options.secret instanceof Uint8Array
      ? [options.secret]
      : options.secret;
  const sealer = createKeySealer(secrets);
  const opened = new Map<string, Promise<CryptoKey>>();
  let listing: { keys: SigningKeyRecord[]; until: number } | undefined;
  let document: { kids: string; jwks: { keys: JWK[] } } | undefined;

  const list = async (fresh: boolean) => {
    const now = clock.now();
    if (fresh || !listing || now >= listing.until)
      listing = { keys: await store.listSigningKeys(), until: now + refreshMs };
    return listing.keys;
  };

  /** The listing, with a key added first when none signs or the next one is due. */
  const current = async () => {
    const now = clock.now();
    const keys = await list(false);
    const active = activeAt(keys, now);
    const waiting = keys.some((key) => key.activatesAt > now);
    if (active && (waiting || now < active.activatesAt + rotationMs - aheadMs)) return keys;
    const newest = keys[0];
    const key = await newKey(algorithm, sealer.seal, now, active ? now + aheadMs : now);
    await store.addSigningKey(key, newest ? newest.createdAt + 1 : Number.MIN_SAFE_INTEGER);
    return list(true);
  };

  const open = (record: SigningKeyRecord) => {
    let key = opened.get(record.kid);
    if (!key) {
      const plain = sealer.open(record.sealedPrivateKey);
      if (plain === null)
        throw new Error(`the signing key ${record.kid} does not open with the configured secret`);
      key = importJWK(JSON.parse(plain) as JWK, record.alg) as Promise<CryptoKey>;
      opened.set(record.kid, key);
    }
    return key;
  };

  return {
    async signingKey() {
      const keys = await current();
      const active = activeAt(keys, clock.now());
      if (!active) throw new Error("no signing key is active");
      return { kid: active.kid, alg: active.alg as SigningAlgorithm, privateKey: await open(active) };
    },
    async jwks() {
      const keys = published(await current(), clock.now(), lifetimeMs);
      const kids = keys.map((key) => key.kid).join(" ");
      // The same document while the same keys are published: a verifier caches its imported
      // keys per document (importing an EC key cost a quarter of a resource request's CPU).
      if (document?.kids !== kids) document = { kids, jwks: { keys: keys.map(publicJwkOf) } };
      return document.jwks;
    },
    async prune() {
      const keys = await list(true);
      const now = clock.now();
      const gone = [...retirements(keys, now)].filter(([, at]) => at + lifetimeMs <= now).map(([kid]) => kid);
      if (gone.length === 0) return 0;
      const deleted = await store.deleteSigningKeys(gone);
      for (const kid of gone) opened.delete(kid);
      await list(true);
      return deleted;
    },
  };
}
