import type { UserRecord, UserStore } from "@portcullis/core";
import { type StoreContext, type StoreFixture, storeContext } from "./store-fixture.js";

/**
 * The optional fields of a `UserRecord` and the value that means the same as leaving it out
 * (`UserRecord`'s TSDoc): null for the timestamps and the lock's reason and author, false for
 * `passwordChangeRequired`. A store that maps them to columns reads them back so; one that keeps
 * documents leaves them out.
 */
const UNSET_MEANS_ABSENT: Record<string, null | false> = {
  lastSignInAt: null,
  lockedAt: null,
  lockReason: null,
  lockedBy: null,
  passwordChangeRequired: false,
};

const isUserRecord = (value: object): value is UserRecord =>
  "id" in value && "email" in value && "twoFactor" in value;

/**
 * `user` as the suite compares it: every optional field that is null, undefined or its "unset"
 * value left out, so a store that reads `lockedAt: null` and one that leaves it out are alike.
 */
export function withoutUnsetFields(user: UserRecord): UserRecord {
  const read: Record<string, unknown> = { ...user };
  for (const [field, unset] of Object.entries(UNSET_MEANS_ABSENT))
    if (read[field] === undefined || read[field] === null || read[field] === unset) delete read[field];
  return read as unknown as UserRecord;
}

/** A store's answer with every user record in it (alone, in a list, in `{ user }`) normalized. */
function normalizeAnswer(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeAnswer);
  if (value === null || typeof value !== "object") return value;
  if (isUserRecord(value)) return withoutUnsetFields(value);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalizeAnswer(item)]));
}

/**
 * The context of a `UserStore` suite test: the store, each method's answer normalized by
 * `withoutUnsetFields`, so the suite compares records the way the port defines them (null and
 * absent alike). Only what the store answers is normalized; what the test passes in is as written.
 */
export function userStoreContext(fixture: StoreFixture<UserStore>): StoreContext<UserStore> {
  const store = fixture.store;
  const reads = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => normalizeAnswer(await value.apply(target, args));
    },
  });
  return { ...storeContext(fixture), store: reads };
}
