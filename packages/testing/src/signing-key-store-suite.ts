import type { SigningKeyRecord, SigningKeyStore } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, storeContext, uniqueId } from "./store-fixture.js";

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

const newKey = (overrides: Partial<SigningKeyRecord> = {}): SigningKeyRecord => ({
  kid: uniqueId("kid").replace(/[^A-Za-z0-9_-]/g, ""),
  alg: "ES256",
  publicJwk: JSON.stringify({
    kty: "EC",
    crv: "P-256",
    x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
    y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
  }),
  sealedPrivateKey: `sealed.${"A".repeat(300)}`,
  createdAt: T0,
  activatesAt: T0 + HOUR,
  ...overrides,
});

/** The executable contract of `SigningKeyStore` (see its TSDoc in @portcullis/core). */
export const runSigningKeyStoreSuite = defineStoreSuite("SigningKeyStore", storeContext<SigningKeyStore>, {
  "": {
    "listSigningKeys - none stored: []": async ({ store }) => {
      expect(await store.listSigningKeys()).toEqual([]);
    },
    "addSigningKey - stores the key as given; listSigningKeys reads it back": async ({ store }) => {
      const key = newKey({
        alg: "EdDSA",
        publicJwk: '{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}',
      });
      expect(await store.addSigningKey(key, T0 + 1)).toBe(true);
      expect(await store.listSigningKeys()).toEqual([key]);
    },
    "addSigningKey - a key created at or after unlessCreatedSince is stored: nothing added": async ({
      store,
    }) => {
      const first = newKey();
      expect(await store.addSigningKey(first, T0 - HOUR)).toBe(true);
      // The stored key was created at T0: at the bound counts, and after it too.
      expect(await store.addSigningKey(newKey({ createdAt: T0 + 10 }), T0)).toBe(false);
      expect(await store.addSigningKey(newKey({ createdAt: T0 + 10 }), T0 - 1)).toBe(false);
      expect(await store.listSigningKeys()).toEqual([first]);
      // Older than the bound: the next key is added.
      const next = newKey({ createdAt: T0 + 30 * 24 * HOUR, activatesAt: T0 + 30 * 24 * HOUR + HOUR });
      expect(await store.addSigningKey(next, T0 + 1)).toBe(true);
      expect(await store.listSigningKeys()).toEqual([next, first]);
    },
    "listSigningKeys - the latest createdAt first, ties by kid descending; copies": async ({ store }) => {
      const keys = [
        newKey({ kid: "kid-b", createdAt: T0 }),
        newKey({ kid: "kid-a", createdAt: T0 + 2 }),
        newKey({ kid: "kid-c", createdAt: T0 }),
      ];
      for (const key of keys) expect(await store.addSigningKey(key, T0 + 5)).toBe(true);
      const listed = await store.listSigningKeys();
      expect(listed.map((key) => key.kid)).toEqual(["kid-a", "kid-c", "kid-b"]);
      (listed[0] as { alg: string }).alg = "changed";
      expect((await store.listSigningKeys())[0]?.alg).toBe("ES256");
    },
    "addSigningKey - a kid already stored rejects and stores nothing": async ({ store }) => {
      const key = newKey();
      await store.addSigningKey(key, T0 + 1);
      await expect(
        store.addSigningKey(newKey({ kid: key.kid, createdAt: T0 - 5 }), T0 + 1),
      ).rejects.toThrow();
      expect(await store.listSigningKeys()).toEqual([key]);
    },
    "addSigningKey - 20 instances rotating at once: exactly one key added": async ({ store }) => {
      const old = newKey();
      await store.addSigningKey(old, T0 + 1);
      const rotatedAt = T0 + 30 * 24 * HOUR;
      const results = await concurrently(20, () =>
        store.addSigningKey(newKey({ createdAt: rotatedAt, activatesAt: rotatedAt + HOUR }), T0 + 1),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const listed = await store.listSigningKeys();
      expect(listed).toHaveLength(2);
      expect(listed[1]).toEqual(old);
    },
    "addSigningKey - 20 first keys at once on an empty store: exactly one added": async ({ store }) => {
      const results = await concurrently(20, () => store.addSigningKey(newKey(), 0));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.listSigningKeys()).toHaveLength(1);
    },
    "deleteSigningKeys - deletes the named keys, skips unknown names, counts what existed": async ({
      store,
    }) => {
      const keys = [0, 1, 2].map((index) => newKey({ createdAt: T0 + index }));
      for (const key of keys) await store.addSigningKey(key, T0 + 10);
      expect(await store.deleteSigningKeys([keys[0]?.kid ?? "", keys[1]?.kid ?? "", "no-such-kid"])).toBe(2);
      expect(await store.listSigningKeys()).toEqual([keys[2]]);
      expect(await store.deleteSigningKeys([])).toBe(0);
      expect(await store.deleteSigningKeys([keys[0]?.kid ?? ""])).toBe(0);
    },
  },
});
