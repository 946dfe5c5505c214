// The store of one ScimStore conformance test, and the users and groups its tests share
// (scim-store-suite.ts, scim-store-groups.ts, scim-store-concurrency.ts).
import { randomBytes } from "node:crypto";
import type { ScimGroupRecord, ScimStore, ScimUserRecord } from "@portcullis/core";
import { expect } from "vitest";
import { type StoreFixture, storeContext } from "./store-fixture.js";

/** The time the records of a test are made from, in milliseconds since the Unix epoch. */
export const T0 = 1_700_000_000_000;

/** The time records are updated at (the store compares none of them). */
export const NOW = T0 + 3_600_000;

/** How many calls the concurrency tests start at once. */
export const AT_ONCE = 20;

/** `count` random lowercase ASCII letters. */
export const newLetters = (count: number) =>
  Array.from(randomBytes(count), (byte) => String.fromCharCode(97 + (byte % 26))).join("");

/** A random connection id, of mixed case (ids are compared byte for byte). */
export const newConnectionId = () => `Conn-${randomBytes(16).toString("base64url")}`;

/** A random account id, of mixed case. */
export const newAccountId = () => `User-${randomBytes(12).toString("base64url")}`;

/**
 * A random SCIM id whose first characters are `first`, so a test may fix how ids sort: byte
 * order, where "A1…" comes before "a0…" (a case-insensitive collation sorts them the other way).
 */
export const newScimId = (first = "S") => `${first}${randomBytes(12).toString("base64url")}`;

/** A random identity provider's id, of mixed case. */
export const newExternalId = () => `Ext-${randomBytes(9).toString("base64url")}`;

/** `text` with the case of each letter swapped. */
export const swapCase = (text: string) =>
  text.replace(/[a-z]/gi, (letter) =>
    letter === letter.toUpperCase() ? letter.toLowerCase() : letter.toUpperCase(),
  );

/** `text` (ASCII) with its letters upper-cased where the bits of `variant` say, the first letter by the lowest bit. */
export const caseVariant = (text: string, variant: number) => {
  let letters = 0;
  return text.replace(/[a-z]/gi, (letter) =>
    (variant >> letters++) & 1 ? letter.toUpperCase() : letter.toLowerCase(),
  );
};

/** `records` ascending by id in code unit order (byte order of ASCII ids), a new array. */
export const byId = <R extends { id: string }>(records: R[]) =>
  [...records].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

/** `ids` ascending in code unit order, without repeats, a new array. */
export const sortedIds = (ids: string[]) => [...new Set(ids)].sort();

/**
 * SCIM attributes as an identity provider sends them: nested objects and arrays, text outside
 * ASCII (an emoji outside the Basic Multilingual Plane too), quotes and control characters,
 * numbers, booleans and nulls.
 */
export const sampleAttributes = (): Record<string, unknown> => ({
  name: {
    givenName: "Zoë",
    familyName: "Łukasiewicz",
    formatted: "Zoë Łukasiewicz 🦊",
    honorificPrefix: null,
  },
  displayName: "Zoë Ł. — 日本語",
  emails: [
    { value: `${newLetters(6)}@example.com`, type: "work", primary: true },
    { value: "zoe@example.org", primary: false },
  ],
  addresses: [],
  phoneNumbers: [{ value: "+41 44 000 00 00", type: "mobile" }],
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {
    employeeNumber: "0042",
    costCenter: 12.5,
    level: -3,
    manager: { value: null, displayName: "" },
    tags: [[1, [2, { deep: [true, false, null] }]], {}, []],
  },
  note: 'a "quoted" \\ back\\slash,\nnew line and\ttab',
});

/** Makers of one test: each record is made 1 s after the one before. */
function makers() {
  let ticks = 0;
  /** A user of `connectionId`: a new id, account, userName and externalId (unless overridden). */
  const user = (connectionId: string, overrides: Partial<ScimUserRecord> = {}): ScimUserRecord => {
    const at = T0 + ++ticks * 1_000;
    return {
      connectionId,
      id: newScimId(),
      userId: newAccountId(),
      userName: `${newLetters(8)}.Lovelace@Example.com`,
      externalId: newExternalId(),
      active: true,
      suspendedRole: null,
      attributes: sampleAttributes(),
      version: 1,
      createdAt: at,
      updatedAt: at,
      ...overrides,
    };
  };
  /** A group of `connectionId` without members: a new id, name and externalId (unless overridden). */
  const group = (connectionId: string, overrides: Partial<ScimGroupRecord> = {}): ScimGroupRecord => {
    const at = T0 + ++ticks * 1_000;
    return {
      connectionId,
      id: newScimId("G"),
      displayName: `Engineering ${newLetters(8)} Team`,
      externalId: newExternalId(),
      role: "member",
      memberIds: [],
      version: 1,
      createdAt: at,
      updatedAt: at,
      ...overrides,
    };
  };
  return { user, group };
}

/**
 * The store of one test (in which other tests' records may be), makers of its records, and
 * shortcuts that store what they make (a copy, so the test's record cannot be changed by the
 * store), check that it was created, and return it as the store keeps it: `storedUser`,
 * `storedGroup` (its `memberIds` sorted, without repeats), and `storedUsers` (`count` users of
 * one connection, one after the other).
 */
export function scimContext(fixture: StoreFixture<ScimStore>) {
  const made = makers();
  const store = fixture.store;
  const storedUser = async (connectionId: string, overrides: Partial<ScimUserRecord> = {}) => {
    const user = made.user(connectionId, overrides);
    expect(await store.createScimUser(structuredClone(user))).toBe("created");
    return user;
  };
  const storedUsers = async (connectionId: string, count: number) => {
    const users: ScimUserRecord[] = [];
    for (let index = 0; index < count; index++) users.push(await storedUser(connectionId));
    return users;
  };
  const storedGroup = async (connectionId: string, overrides: Partial<ScimGroupRecord> = {}) => {
    const group = made.group(connectionId, overrides);
    expect(await store.createScimGroup(structuredClone(group))).toBe("created");
    return { ...group, memberIds: sortedIds(group.memberIds) };
  };
  return { ...storeContext(fixture), ...made, storedUser, storedUsers, storedGroup };
}

export type ScimContext = ReturnType<typeof scimContext>;

/** The tests of one describe block of the suite. */
export type ScimTests = Record<string, (context: ScimContext) => unknown>;
