import { createMemorySigningKeyStore } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { createKeySealer } from "./sealed-key.js";
import { createSigningKeyRing } from "./signing-keys.js";
import { DAY_MS, HOUR_MS, SECRET, testClock, testRing } from "./test-ring.js";

const kidsOf = async (ring: ReturnType<typeof testRing>["ring"]) =>
  (await ring.jwks()).keys.map((key) => key.kid);

describe("signing keys", () => {
  it("signingKey - the first key is made on first use and signs at once; the JWKS holds its public half only", async () => {
    const clock = testClock();
    const { store, ring } = testRing(clock);
    expect(await store.listSigningKeys()).toEqual([]);
    const key = await ring.signingKey();
    expect(key.alg).toBe("ES256");
    const [stored] = await store.listSigningKeys();
    expect(stored).toMatchObject({
      kid: key.kid,
      alg: "ES256",
      createdAt: clock.now(),
      activatesAt: clock.now(),
    });
    const { keys } = await ring.jwks();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "EC", crv: "P-256", kid: key.kid, alg: "ES256", use: "sig" });
    expect(keys[0]).not.toHaveProperty("d");
    // The same key on the next call: no second one made.
    expect((await ring.signingKey()).kid).toBe(key.kid);
    expect(await store.listSigningKeys()).toHaveLength(1);
  });

  it("sealed keys - the store holds no private parameter in clear; a changed byte or another secret opens nothing; a rotated secret still opens", async () => {
    const clock = testClock();
    const { store, ring } = testRing(clock);
    await ring.signingKey();
    const [stored] = await store.listSigningKeys();
    const sealed = stored?.sealedPrivateKey ?? "";
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    const opened = createKeySealer([SECRET]).open(sealed);
    const privateJwk = JSON.parse(opened ?? "{}") as { d?: string };
    expect(privateJwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sealed).not.toContain(privateJwk.d);
    expect(createKeySealer(["another-secret-of-another-deployment-00000"]).open(sealed)).toBeNull();
    const flipped = `${sealed.slice(0, 20)}${sealed[20] === "A" ? "B" : "A"}${sealed.slice(21)}`;
    expect(createKeySealer([SECRET]).open(flipped)).toBeNull();
    expect(createKeySealer(["a-new-secret-put-first-1234567890abcdef", SECRET]).open(sealed)).toBe(opened);
    // A ring whose secret opens nothing refuses to sign rather than making another key.
    const stranger = createSigningKeyRing({
      store,
      secret: "not-the-deployment-secret-0123456789",
      tokenLifetimeSeconds: 3600,
      clock,
    });
    await expect(stranger.signingKey()).rejects.toThrow(/does not open/);
  });

  it("rotation - the next key is published ahead of its turn, signs from its activation on, and the old one stays until its tokens expire; the JWKS is one object while its keys stay", async () => {
    const clock = testClock();
    const { store, ring } = testRing(clock, {
      rotationDays: 30,
      publishAheadSeconds: 3600,
      refreshSeconds: 60,
    });
    const first = await ring.signingKey();
    clock.advance(30 * DAY_MS - HOUR_MS - 1000);
    expect((await ring.signingKey()).kid).toBe(first.kid);
    expect(await kidsOf(ring)).toEqual([first.kid]);
    const firstDocument = await ring.jwks();
    expect(await ring.jwks()).toBe(firstDocument);
    clock.advance(2000);
    // Due: the next key is made, published, and does not sign yet.
    expect((await ring.signingKey()).kid).toBe(first.kid);
    const listed = await store.listSigningKeys();
    expect(listed).toHaveLength(2);
    const next = listed[0];
    expect(next?.activatesAt).toBe(clock.now() + HOUR_MS);
    expect(await kidsOf(ring)).toEqual([next?.kid, first.kid]);
    const bothDocument = await ring.jwks();
    expect(bothDocument).not.toBe(firstDocument);
    clock.advance(HOUR_MS);
    expect((await ring.signingKey()).kid).toBe(next?.kid);
    expect(await ring.jwks()).toBe(bothDocument);
    // Retired now; published for the token lifetime (1 h) after the next key activated.
    clock.advance(HOUR_MS - 1000);
    expect(await kidsOf(ring)).toEqual([next?.kid, first.kid]);
    expect(await ring.prune()).toBe(0);
    clock.advance(1000);
    expect(await kidsOf(ring)).toEqual([next?.kid]);
    expect(await ring.jwks()).not.toBe(bothDocument);
    expect(await ring.prune()).toBe(1);
    expect((await store.listSigningKeys()).map((key) => key.kid)).toEqual([next?.kid]);
  });

  it("rotation - 20 instances finding the key due at once: one next key made, and all sign with it from its activation", async () => {
    const clock = testClock();
    const store = createMemorySigningKeyStore();
    const rings = Array.from({ length: 20 }, () => testRing(clock, { store, refreshSeconds: 1 }).ring);
    const firsts = await Promise.all(rings.map((ring) => ring.signingKey()));
    expect(new Set(firsts.map((key) => key.kid)).size).toBe(1);
    expect(await store.listSigningKeys()).toHaveLength(1);
    clock.advance(30 * DAY_MS);
    await Promise.all(rings.map((ring) => ring.signingKey()));
    expect(await store.listSigningKeys()).toHaveLength(2);
    clock.advance(HOUR_MS);
    const nexts = await Promise.all(rings.map((ring) => ring.signingKey()));
    expect(new Set(nexts.map((key) => key.kid)).size).toBe(1);
    expect(nexts[0]?.kid).not.toBe(firsts[0]?.kid);
  });

  it("EdDSA - an Ed25519 key, published as an OKP JWK", async () => {
    const clock = testClock();
    const { ring } = testRing(clock, { algorithm: "EdDSA" });
    const key = await ring.signingKey();
    expect(key.alg).toBe("EdDSA");
    expect((await ring.jwks()).keys[0]).toMatchObject({
      kty: "OKP",
      crv: "Ed25519",
      alg: "EdDSA",
      kid: key.kid,
    });
  });

  it("options - a rotation not longer than the publication ahead, or no token lifetime, is refused", () => {
    const store = createMemorySigningKeyStore();
    expect(() =>
      createSigningKeyRing({
        store,
        secret: SECRET,
        tokenLifetimeSeconds: 60,
        rotationDays: 1,
        publishAheadSeconds: 86_400,
      }),
    ).toThrow(RangeError);
    expect(() => createSigningKeyRing({ store, secret: SECRET, tokenLifetimeSeconds: 0 })).toThrow(
      RangeError,
    );
  });
});
