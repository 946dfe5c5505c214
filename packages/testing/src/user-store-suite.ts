import type { TwoFactorSettings, UserRecord, UserStore } from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, defineStoreSuite, uniqueId } from "./store-fixture.js";
import { userStoreContext } from "./user-record-reads.js";

const newUser = (overrides: Partial<UserRecord> = {}): UserRecord => {
  const id = uniqueId("user");
  return {
    id,
    email: `${id}@example.test`,
    emailVerified: false,
    name: "Ada",
    passwordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g",
    identityProviders: [],
    twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
};

const totp = (): TwoFactorSettings => ({
  methods: ["totp", "email"],
  preferredMethod: "totp",
  totpSecretEncrypted: "v1.iv.ciphertext",
  recoveryCodeHashes: ["hash-1", "hash-2"],
});

/** Both lookups of `user`, by id and by email, read `expected` (null: not found). */
async function expectLookups(store: UserStore, user: UserRecord, expected: UserRecord | null): Promise<void> {
  expect(await store.findById(user.id)).toEqual(expected);
  expect(await store.findByEmail(user.email)).toEqual(expected);
}

/** The store's `recordSignIn`: optional in the type, expected here (else login alerts read, then update). */
function recordSignIn(store: UserStore): (id: string, at: number) => Promise<boolean> {
  if (!store.recordSignIn)
    throw new Error(
      "this UserStore has no recordSignIn(id, at): see UserStore.recordSignIn in @portcullis/core",
    );
  return store.recordSignIn.bind(store);
}

/**
 * The store's `replacePasswordHash`: optional in the type, expected of a store that passes this
 * suite (without it login never replaces an outdated hash).
 */
function replacePasswordHash(
  store: UserStore,
): (id: string, expected: string, next: string) => Promise<boolean> {
  if (!store.replacePasswordHash)
    throw new Error(
      "this UserStore has no replacePasswordHash(id, expected, next): see UserStore.replacePasswordHash in @portcullis/core",
    );
  return store.replacePasswordHash.bind(store);
}

/** The store's `changeEmail`: optional in the type, expected of a store that passes this suite. */
function changeEmail(store: UserStore): NonNullable<UserStore["changeEmail"]> {
  if (!store.changeEmail)
    throw new Error(
      "this UserStore has no changeEmail(id, from, to): see UserStore.changeEmail in @portcullis/core",
    );
  return store.changeEmail.bind(store);
}

/** `UserStore.changeEmail`: the compare-and-set on the old address and the new one's uniqueness. */
const changeEmailTests: Record<string, (context: { store: UserStore }) => Promise<void>> = {
  "changeEmail - moves the user to the new address, verified; the old address finds nobody and is free":
    async ({ store }) => {
      const user = newUser({ twoFactor: totp() });
      await store.create(user);
      const to = `${uniqueId("moved")}@example.test`;
      const result = await changeEmail(store)(user.id, user.email, to);
      const moved = { ...user, email: to, emailVerified: true };
      expect(result).toEqual({ status: "changed", user: moved });
      expect(await store.findById(user.id)).toEqual(moved);
      expect(await store.findByEmail(to)).toEqual(moved);
      expect(await store.findByEmail(user.email)).toBeNull();
      const again = newUser({ email: user.email });
      expect(await store.create(again)).toEqual(again);
    },
  "changeEmail - another user's address is taken: nothing changes for either": async ({ store }) => {
    const user = newUser();
    const other = newUser();
    await store.create(user);
    await store.create(other);
    expect(await changeEmail(store)(user.id, user.email, other.email)).toEqual({ status: "taken" });
    expect(await store.findById(user.id)).toEqual(user);
    expect(await store.findByEmail(other.email)).toEqual(other);
  },
  "changeEmail - stale when the address is no longer the expected one, or there is no such user": async ({
    store,
  }) => {
    const user = newUser();
    await store.create(user);
    const to = `${uniqueId("stale")}@example.test`;
    expect(await changeEmail(store)(user.id, `${uniqueId("old")}@example.test`, to)).toEqual({
      status: "stale",
    });
    expect(await changeEmail(store)(uniqueId("missing"), user.email, to)).toEqual({ status: "stale" });
    expect(await store.findById(user.id)).toEqual(user);
    expect(await store.findByEmail(to)).toBeNull();
  },
  "changeEmail - 10 users moving to one address at once: exactly one changed, the others taken and unchanged":
    async ({ store }) => {
      const users = Array.from({ length: 10 }, () => newUser());
      for (const user of users) await store.create(user);
      const to = `${uniqueId("race")}@example.test`;
      const results = await concurrently(10, (i) => {
        const user = users[i] as UserRecord;
        return changeEmail(store)(user.id, user.email, to);
      });
      const changed = results.filter((result) => result.status === "changed");
      expect(changed).toHaveLength(1);
      expect(results.filter((result) => result.status === "taken")).toHaveLength(9);
      const winner = changed[0]?.status === "changed" ? changed[0].user.id : undefined;
      expect((await store.findByEmail(to))?.id).toBe(winner);
      for (const user of users) {
        if (user.id !== winner) expect(await store.findById(user.id)).toEqual(user);
      }
    },
  "changeEmail - a move and a create of one address at once: exactly one of them gets it": async ({
    store,
  }) => {
    const user = newUser();
    await store.create(user);
    const to = `${uniqueId("contest")}@example.test`;
    const newcomer = newUser({ email: to });
    const [moved, created] = await Promise.all([
      changeEmail(store)(user.id, user.email, to),
      store.create(newcomer),
    ]);
    expect([moved.status === "changed", created !== null].filter(Boolean)).toHaveLength(1);
    const owner = await store.findByEmail(to);
    expect(owner?.id).toBe(moved.status === "changed" ? user.id : newcomer.id);
  },
};
/** The store's `listUsers`: optional in the type, expected of a store that passes this suite. */
function listUsers(store: UserStore): NonNullable<UserStore["listUsers"]> {
  if (!store.listUsers)
    throw new Error("this UserStore has no listUsers(query): see UserStore.listUsers in @portcullis/core");
  return store.listUsers.bind(store);
}

/** Every page of `prefix`, `limit` at a time, with `between(page)` run after each page. */
async function allPages(
  store: UserStore,
  prefix: string,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
): Promise<string[]> {
  const seen: string[] = [];
  let after: string | undefined;
  for (let page = 0; page < 1000; page += 1) {
    const users = await listUsers(store)({ prefix, after, limit });
    seen.push(...users.map((user) => user.email));
    if (users.length < limit) return seen;
    after = users.at(-1)?.email;
    await between(page);
  }
  throw new Error("listUsers never ended");
}

/** The contract of `UserStore` (its TSDoc in @portcullis/core), run; null and absent optional fields read alike. */
export const runUserStoreSuite = defineStoreSuite("UserStore", userStoreContext, {
  "": {
    ...changeEmailTests,
    "create - stores the user and returns it; findById and findByEmail read it back": async ({ store }) => {
      const user = newUser({ identityProviders: ["github"], passwordHash: null, twoFactor: totp() });
      expect(await store.create(user)).toEqual(user);
      await expectLookups(store, user, user);
    },
    "delete - removes the user (by id and email), frees the email, and is false the second time": async ({
      store,
    }) => {
      const user = newUser();
      const other = newUser();
      await store.create(user);
      await store.create(other);
      expect(await store.delete(user.id)).toBe(true);
      await expectLookups(store, user, null);
      expect(await store.delete(user.id)).toBe(false);
      expect(await store.findById(other.id)).toEqual(other);
      const again = newUser({ email: user.email });
      expect(await store.create(again)).toEqual(again);
    },
    "findById - null when there is no such user": async ({ store }) => {
      expect(await store.findById(uniqueId("missing"))).toBeNull();
    },
    "findByEmail - null when there is no such user": async ({ store }) => {
      expect(await store.findByEmail(`${uniqueId("missing")}@example.test`)).toBeNull();
    },
    "create - a second user with the same email creates nothing and returns null": async ({ store }) => {
      const user = newUser();
      await store.create(user);
      const duplicate = newUser({ email: user.email, name: "Eve" });
      expect(await store.create(duplicate)).toBeNull();
      expect(await store.findById(duplicate.id)).toBeNull();
      expect(await store.findByEmail(user.email)).toEqual(user);
    },
    "create - 20 concurrent creates with one email: exactly one succeeds, and only it is stored": async ({
      store,
    }) => {
      const email = `${uniqueId("race")}@example.test`;
      const users = Array.from({ length: 20 }, () => newUser({ email }));
      const results = await concurrently(20, (i) => store.create(users[i] as UserRecord));
      const created = results.filter((result) => result !== null);
      expect(created).toHaveLength(1);
      expect((await store.findByEmail(email))?.id).toBe(created[0]?.id);
      const found = await Promise.all(users.map((user) => store.findById(user.id)));
      expect(found.filter((user) => user !== null)).toHaveLength(1);
    },
    "create - concurrent creates with different emails all succeed": async ({ store }) => {
      const users = Array.from({ length: 20 }, () => newUser());
      const results = await concurrently(20, (i) => store.create(users[i] as UserRecord));
      expect(results).toEqual(users);
    },
    "update - applies the patch and returns the new record; other fields, id, email and createdAt stay":
      async ({ store }) => {
        const user = newUser();
        await store.create(user);
        const twoFactor = totp();
        const updated = await store.update(user.id, { emailVerified: true, passwordHash: null, twoFactor });
        expect(updated).toEqual({ ...user, emailVerified: true, passwordHash: null, twoFactor });
        await expectLookups(store, user, updated);
      },
    "update - id, email and createdAt in a patch are ignored, even though the type forbids them": async ({
      store,
    }) => {
      const user = newUser();
      await store.create(user);
      const sneaky = {
        id: "other-id",
        email: "other@example.test",
        createdAt: 1,
        name: "Renamed",
      } as Parameters<UserStore["update"]>[1];
      expect(await store.update(user.id, sneaky)).toEqual({ ...user, name: "Renamed" });
      expect(await store.findByEmail("other@example.test")).toBeNull();
      expect(await store.findById("other-id")).toBeNull();
    },
    "update - an empty patch changes nothing": async ({ store }) => {
      const user = newUser();
      await store.create(user);
      expect(await store.update(user.id, {})).toEqual(user);
    },
    "update - null for an unknown id, and nothing is created": async ({ store }) => {
      const id = uniqueId("missing");
      expect(await store.update(id, { name: "x" })).toBeNull();
      expect(await store.findById(id)).toBeNull();
    },
    "update - changes only that user": async ({ store }) => {
      const a = newUser();
      const b = newUser();
      await store.create(a);
      await store.create(b);
      await store.update(a.id, { name: "Grace", identityProviders: ["github"] });
      expect(await store.findById(b.id)).toEqual(b);
    },
    "replacePasswordHash - sets the hash only while it is the expected one": async ({ store }) => {
      const user = newUser();
      const other = newUser();
      await store.create(user);
      await store.create(other);
      const rehashed = "$argon2id$v=19$m=65536,t=3,p=1$bmV3c2FsdA$bmV3aGFzaA";
      expect(await replacePasswordHash(store)(user.id, "$argon2id$not-the-current-one", rehashed)).toBe(
        false,
      );
      expect(await store.findById(user.id)).toEqual(user);
      expect(await replacePasswordHash(store)(user.id, user.passwordHash ?? "", rehashed)).toBe(true);
      await expectLookups(store, user, { ...user, passwordHash: rehashed });
      expect(await replacePasswordHash(store)(user.id, user.passwordHash ?? "", "$argon2id$third")).toBe(
        false,
      );
      expect(await store.findById(other.id)).toEqual(other);
    },
    "replacePasswordHash - false for an unknown id and for a user without a password": async ({ store }) => {
      const id = uniqueId("missing");
      expect(await replacePasswordHash(store)(id, "$argon2id$a", "$argon2id$b")).toBe(false);
      expect(await store.findById(id)).toBeNull();
      const user = newUser({ passwordHash: null });
      await store.create(user);
      expect(await replacePasswordHash(store)(user.id, "$argon2id$a", "$argon2id$b")).toBe(false);
      expect(await store.findById(user.id)).toEqual(user);
    },
    "replacePasswordHash - 20 concurrent replacements of one hash: exactly one wins": async ({ store }) => {
      const user = newUser();
      await store.create(user);
      const results = await concurrently(20, (i) =>
        replacePasswordHash(store)(user.id, user.passwordHash ?? "", `$argon2id$rehash-${i}`),
      );
      expect(results.filter((won) => won)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await store.findById(user.id))?.passwordHash).toBe(`$argon2id$rehash-${winner}`);
    },
    "recordSignIn - true for the account's first sign-in, false for every later one; lastSignInAt reads the latest":
      async ({ store }) => {
        const user = newUser();
        await store.create(user);
        expect((await store.findById(user.id))?.lastSignInAt ?? null).toBeNull();
        expect(await recordSignIn(store)(user.id, 1_700_000_100_000)).toBe(true);
        expect(await store.findById(user.id)).toEqual({ ...user, lastSignInAt: 1_700_000_100_000 });
        expect(await recordSignIn(store)(user.id, 1_700_000_200_000)).toBe(false);
        expect(await recordSignIn(store)(user.id, 1_700_000_300_000)).toBe(false);
        await expectLookups(store, user, { ...user, lastSignInAt: 1_700_000_300_000 });
      },
    "recordSignIn - false for an unknown id, and nothing is created": async ({ store }) => {
      const id = uniqueId("missing");
      expect(await recordSignIn(store)(id, 1_700_000_100_000)).toBe(false);
      expect(await store.findById(id)).toBeNull();
    },
    "recordSignIn - 20 concurrent first sign-ins: exactly one is the first": async ({ store }) => {
      const user = newUser();
      await store.create(user);
      const results = await concurrently(20, (i) => recordSignIn(store)(user.id, 1_700_000_100_000 + i));
      expect(results.filter((first) => first)).toHaveLength(1);
      expect((await store.findById(user.id))?.lastSignInAt).toBeGreaterThanOrEqual(1_700_000_100_000);
      expect(await recordSignIn(store)(user.id, 1_700_000_200_000)).toBe(false);
    },
    "recordSignIn - changes only that user; a user created with lastSignInAt has signed in before": async ({
      store,
    }) => {
      const a = newUser();
      const b = newUser();
      const c = newUser({ lastSignInAt: 1_600_000_000_000 });
      for (const user of [a, b, c]) await store.create(user);
      await recordSignIn(store)(a.id, 1_700_000_100_000);
      expect(await store.findById(b.id)).toEqual(b);
      expect(await store.findById(c.id)).toEqual(c);
      expect(await recordSignIn(store)(c.id, 1_700_000_100_000)).toBe(false);
      expect(await recordSignIn(store)(b.id, 1_700_000_100_000)).toBe(true);
    },
    "recordSignInIfUnchanged (optional) - answers the record as read and records the sign-in; an unknown id is null":
      async ({ store }) => {
        if (!store.recordSignInIfUnchanged) return;
        const user = newUser();
        await store.create(user);
        expect(
          await store.recordSignInIfUnchanged(user.id, 1_700_000_100_000, user.passwordHash ?? undefined),
        ).toEqual(user);
        expect(await store.findById(user.id)).toEqual({ ...user, lastSignInAt: 1_700_000_100_000 });
        // Without a hash (a sign-in by another method) only the lock is checked.
        expect(await store.recordSignInIfUnchanged(user.id, 1_700_000_200_000)).toEqual({
          ...user,
          lastSignInAt: 1_700_000_100_000,
        });
        expect((await store.findById(user.id))?.lastSignInAt).toBe(1_700_000_200_000);
        const missing = uniqueId("missing");
        expect(await store.recordSignInIfUnchanged(missing, 1_700_000_100_000)).toBeNull();
        expect(await store.findById(missing)).toBeNull();
      },
    "recordSignInIfUnchanged (optional) - another hash or a lock: the record as it is, and nothing recorded":
      async ({ store }) => {
        if (!store.recordSignInIfUnchanged) return;
        const user = newUser();
        await store.create(user);
        expect(await store.recordSignInIfUnchanged(user.id, 1_700_000_100_000, "$argon2id$another")).toEqual(
          user,
        );
        expect((await store.findById(user.id))?.lastSignInAt ?? null).toBeNull();
        const locked = await store.update(user.id, {
          lockedAt: 1_700_000_050_000,
          lockReason: null,
          lockedBy: null,
        });
        expect(
          await store.recordSignInIfUnchanged(user.id, 1_700_000_100_000, user.passwordHash ?? undefined),
        ).toEqual(locked);
        expect(await store.recordSignInIfUnchanged(user.id, 1_700_000_100_000)).toEqual(locked);
        expect(await store.findById(user.id)).toEqual(locked);
      },
    "recordSignInIfUnchanged (optional) - 20 concurrent sign-ins: exactly one reads the account as never signed in":
      async ({ store }) => {
        const record = store.recordSignInIfUnchanged?.bind(store);
        if (!record) return;
        const user = newUser();
        await store.create(user);
        const read = await concurrently(20, (i) =>
          record(user.id, 1_700_000_100_000 + i, user.passwordHash ?? undefined),
        );
        expect(read.filter((record) => record?.lastSignInAt == null)).toHaveLength(1);
        const last = (await store.findById(user.id))?.lastSignInAt;
        expect(last).toBeGreaterThanOrEqual(1_700_000_100_000);
        expect(last).toBeLessThan(1_700_000_100_020);
      },
    "update - sets lastSignInAt like any other field": async ({ store }) => {
      const user = newUser();
      await store.create(user);
      expect(await store.update(user.id, { lastSignInAt: 1_700_000_100_000 })).toEqual({
        ...user,
        lastSignInAt: 1_700_000_100_000,
      });
      expect(await recordSignIn(store)(user.id, 1_700_000_200_000)).toBe(false);
    },
    "records - returned objects are copies: mutating them does not change the store": async ({ store }) => {
      const user = newUser();
      const created = await store.create(user);
      created?.identityProviders.push("evil");
      const found = await store.findById(user.id);
      if (found) {
        found.name = "changed";
        found.twoFactor.methods.push("email");
      }
      const byEmail = await store.findByEmail(user.email);
      byEmail?.twoFactor.recoveryCodeHashes.push("evil");
      const updated = await store.update(user.id, { emailVerified: true });
      updated?.identityProviders.push("evil");
      expect(await store.findById(user.id)).toEqual({ ...user, emailVerified: true });
    },
    "records - the objects passed in are copied: mutating them later does not change the store": async ({
      store,
    }) => {
      const user = newUser();
      await store.create(user);
      user.name = "changed";
      user.identityProviders.push("evil");
      const twoFactor = totp();
      await store.update(user.id, { twoFactor });
      twoFactor.methods.pop();
      twoFactor.recoveryCodeHashes.push("evil");
      expect(await store.findById(user.id)).toMatchObject({
        name: "Ada",
        identityProviders: [],
        twoFactor: totp(),
      });
    },
  },
  "back office": {
    "update - the lock and the required password change are kept, read back and cleared": async ({
      store,
    }) => {
      const user = newUser();
      await store.create(user);
      const lock = { lockedAt: 1_700_000_300_000, lockReason: "fraud review", lockedBy: "admin-1" };
      expect(await store.update(user.id, { ...lock, passwordChangeRequired: true })).toEqual({
        ...user,
        ...lock,
        passwordChangeRequired: true,
      });
      await expectLookups(store, user, { ...user, ...lock, passwordChangeRequired: true });
      const cleared = await store.update(user.id, {
        lockedAt: null,
        lockReason: null,
        lockedBy: null,
        passwordChangeRequired: false,
      });
      expect(cleared?.lockedAt ?? null).toBeNull();
      expect(cleared?.lockReason ?? null).toBeNull();
      expect(cleared?.lockedBy ?? null).toBeNull();
      expect(cleared?.passwordChangeRequired ?? false).toBe(false);
      expect(await store.findById(user.id)).toEqual(cleared);
    },
    "listUsers - users whose email starts with the prefix, in order, at most limit, after the cursor":
      async ({ store }) => {
        const prefix = uniqueId("list").toLowerCase();
        const emails = ["c", "a", "b", "d", "e"].map((letter) => `${prefix}-${letter}@example.test`);
        for (const email of emails) await store.create(newUser({ email }));
        await store.create(newUser({ email: `x${prefix}-z@example.test` }));
        const sorted = [...emails].sort();
        const first = await listUsers(store)({ prefix, limit: 2 });
        expect(first.map((user) => user.email)).toEqual(sorted.slice(0, 2));
        expect(first[0]).toEqual(await store.findByEmail(sorted[0] as string));
        const second = await listUsers(store)({ prefix, after: sorted[1], limit: 10 });
        expect(second.map((user) => user.email)).toEqual(sorted.slice(2));
        expect(await listUsers(store)({ prefix: `${prefix}-c`, limit: 10 })).toHaveLength(1);
        expect(await listUsers(store)({ prefix: `${prefix}-q`, limit: 10 })).toEqual([]);
        expect(await listUsers(store)({ prefix, after: sorted[4], limit: 10 })).toEqual([]);
      },
    "listUsers - pages never repeat or skip a user while others are added between them": async ({
      store,
    }) => {
      const prefix = uniqueId("page").toLowerCase();
      const email = (n: number) => `${prefix}-${String(n).padStart(3, "0")}@example.test`;
      const existing = Array.from({ length: 60 }, (_, i) => email(i * 2));
      await concurrently(60, (i) => store.create(newUser({ email: existing[i] as string })));
      let added = 1;
      const seen = await allPages(store, prefix, 7, async () => {
        // One before the cursor, one after it, one at the very end.
        for (const n of [added, added + 40, 200 + added]) await store.create(newUser({ email: email(n) }));
        added += 2;
      });
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual([...seen].sort());
      for (const address of existing) expect(seen).toContain(address);
    },
    "listUsers - the empty prefix lists every user; an email with unicode sorts and pages like any": async ({
      store,
    }) => {
      const prefix = uniqueId("uni").toLowerCase();
      const emails = [`${prefix}-é@example.test`, `${prefix}-e@example.test`, `${prefix}-ü@example.test`];
      for (const address of emails) await store.create(newUser({ email: address }));
      const seen = await allPages(store, prefix, 1);
      expect([...seen].sort()).toEqual([...emails].sort());
      const everyone = await listUsers(store)({ prefix: "", limit: 101 });
      expect(everyone.length).toBeGreaterThanOrEqual(Math.min(101, 3));
    },
  },
});
