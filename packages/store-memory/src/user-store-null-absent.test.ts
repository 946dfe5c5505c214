import type { UserRecord, UserStore } from "@portcullis/core";
import { createFakeClock, runUserStoreSuite, sampleUserRecord } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryStores } from "./memory-stores.js";

// UserStore's TSDoc says an optional field that is null means what an absent one means (and
// `passwordChangeRequired: false` what an absent one means). The suite must take both spellings:
// here it runs against the memory store read back as a natural SQL mapping writes every column
// (null, false), and as a sparse document store leaves them out.

/** The optional fields of a `UserRecord`, and what a store that writes every column reads for "not set". */
const UNSET = {
  lastSignInAt: null,
  lockedAt: null,
  lockReason: null,
  lockedBy: null,
  passwordChangeRequired: false,
};

type Spelling = (user: UserRecord) => UserRecord;

/** Every unset optional field present, as null (false for `passwordChangeRequired`). */
const everyColumn: Spelling = (user) => {
  const read: Record<string, unknown> = { ...user };
  for (const [field, unset] of Object.entries(UNSET)) read[field] ??= unset;
  return read as unknown as UserRecord;
};

/** Every optional field that is null (or `passwordChangeRequired: false`) left out. */
const sparse: Spelling = (user) => {
  const read: Record<string, unknown> = { ...user };
  for (const [field, unset] of Object.entries(UNSET))
    if (read[field] == null || read[field] === unset) delete read[field];
  return read as unknown as UserRecord;
};

const isUser = (value: object): value is UserRecord => "email" in value && "twoFactor" in value;

/** `value` (a store's answer) with every user record in it spelled by `spell`. */
function respell(value: unknown, spell: Spelling): unknown {
  if (Array.isArray(value)) return value.map((item) => respell(item, spell));
  if (value === null || typeof value !== "object") return value;
  if (isUser(value)) return spell(value);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, respell(item, spell)]));
}

/** The store, every answer of every method spelled by `spell`. */
function readingAs(store: UserStore, spell: Spelling): UserStore {
  const methods = Object.entries(store).filter(([, method]) => typeof method === "function");
  return Object.fromEntries(
    methods.map(([name, method]) => [
      name,
      async (...args: unknown[]) =>
        respell(await (method as (...a: unknown[]) => unknown).apply(store, args), spell),
    ]),
  ) as unknown as UserStore;
}

const memoryReadingAs = (spell: Spelling) => () => {
  const clock = createFakeClock();
  const stores = createMemoryStores({ clock });
  return {
    store: readingAs(stores.users, spell),
    advance: clock.advance,
    now: clock.now,
    cleanup: stores.close,
  };
};

describe("readingAs", () => {
  it("readingAs - every column reads null (false) for what is unset; sparse leaves them out", async () => {
    const user = sampleUserRecord({ id: "u-1", createdAt: 1_700_000_000_000 });
    const full = memoryReadingAs(everyColumn)();
    await full.store.create(user);
    expect(await full.store.findById(user.id)).toStrictEqual({ ...user, ...UNSET });
    const few = memoryReadingAs(sparse)();
    await few.store.create({ ...user, ...UNSET });
    expect(await few.store.findById(user.id)).toStrictEqual(user);
    full.cleanup();
    few.cleanup();
  });
});

runUserStoreSuite({ name: "memory, unset fields read as null", create: memoryReadingAs(everyColumn) });
runUserStoreSuite({ name: "memory, null fields left out", create: memoryReadingAs(sparse) });
