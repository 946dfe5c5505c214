import type {
  AccessTokenAllowlist,
  AllowlistEntry,
  JointStores,
  OrganizationStore,
  SessionStore,
  UserRecord,
  UserStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { ALLOWLIST_MEMBERSHIP_TESTS } from "./access-token-allowlist-membership.js";
import { ALLOWLIST_ROTATION_TESTS } from "./access-token-allowlist-rotation.js";
import { ALLOWLIST_SIGN_IN_TESTS } from "./access-token-allowlist-sign-in.js";
import {
  concurrently,
  defineStoreSuite,
  elapse,
  expectMintedIds,
  type StoreFixture,
  sampleSession,
  sampleUser,
  uniqueId,
} from "./store-fixture.js";

/** An access token's lifetime in these tests (15 minutes), in milliseconds. */
const TTL_MS = 900_000;

/**
 * The allowlist suite's fixture. With `joint` (the `JointStores` a store package builds beside the
 * allowlist), the suite also checks its methods: `users`, `sessions` and `organizations` are then
 * the stores of the same package that it reads and writes with the allowlist, required for its
 * reads (`users`; `organizations` too for the membership read) and its write (`sessions`).
 */
export interface AccessTokenAllowlistFixture extends StoreFixture<AccessTokenAllowlist> {
  joint?: JointStores;
  users?: UserStore;
  sessions?: SessionStore;
  organizations?: OrganizationStore;
}

/** A user record of its own for the joint-read tests. */
const newUser = (): UserRecord => sampleUser({ identityProviders: ["github"] });

/** The allowlist of one test, and helpers that make entries for it. */
function allowlistContext(fixture: AccessTokenAllowlistFixture) {
  const store = fixture.store;
  /**
   * The fixture's joint read and the users it reads, when it has one (null: the store reads
   * entries alone, and the joint-read tests have nothing to check).
   */
  const joint = () => {
    const composite = fixture.joint;
    const read = composite?.findAllowedAccessTokenWithUser;
    if (read === undefined) return null;
    const users = fixture.users;
    if (users === undefined)
      throw new Error("a fixture whose joint has findAllowedAccessTokenWithUser needs `users`");
    /** A user created in `users`, and a `jti` allowed for one session of theirs. */
    const allowedForUser = async (ttlMs = TTL_MS) => {
      const user = newUser();
      expect(await users.create(user)).not.toBeNull();
      const sessionId = uniqueId("session");
      const jti = store.createAccessTokenId?.(sessionId) ?? uniqueId("jti");
      const entry: AllowlistEntry = { userId: user.id, sessionId };
      await store.allowAccessToken(jti, entry, ttlMs);
      return { user, jti, entry };
    };
    return {
      read: (jti: string) => read.call(composite, jti),
      users,
      allowedForUser,
    };
  };
  /**
   * The fixture's joint write and the sessions it writes, when it has one (null: nothing to
   * check). `write` makes a new session of a new user and its `jti`, and writes both through the
   * joint call: the record and the entry.
   */
  const jointWrite = () => {
    const composite = fixture.joint;
    const write = composite?.allowAccessTokenWithSession;
    if (write === undefined) return null;
    const sessions = fixture.sessions;
    if (sessions === undefined)
      throw new Error("a fixture whose joint has allowAccessTokenWithSession needs `sessions`");
    const prepare = (userId = uniqueId("user")) => {
      const session = sampleSession(sessions, { userId });
      // The store's own jti for the session when it mints them.
      const jti = store.createAccessTokenId?.(session.id) ?? session.accessTokenJti;
      return { session: { ...session, accessTokenJti: jti }, entry: { userId, sessionId: session.id }, jti };
    };
    return {
      sessions,
      prepare,
      write: async (
        made: ReturnType<typeof prepare> = prepare(),
        { ttlMs = TTL_MS, sessionTtlMs = TTL_MS } = {},
      ) => {
        await write.call(composite, made.jti, made.entry, ttlMs, made.session, sessionTtlMs);
        return made;
      },
    };
  };
  /** A new session's entry and a `jti` for it (the store's own when it mints them). */
  const newToken = (sessionId = uniqueId("session")) => {
    const entry: AllowlistEntry = { userId: uniqueId("user"), sessionId };
    return { jti: store.createAccessTokenId?.(sessionId) ?? uniqueId("jti"), entry };
  };
  /** A new `jti`, allowed for `ttlMs` (default `TTL_MS`). */
  const allowedToken = async (ttlMs = TTL_MS) => {
    const token = newToken();
    await store.allowAccessToken(token.jti, token.entry, ttlMs);
    return token;
  };
  return { store, fixture, newToken, allowedToken, joint, jointWrite };
}

/**
 * The executable contract of `AccessTokenAllowlist` (see its TSDoc in @portcullis/core).
 * Time-dependent tests use TTLs of a few hundred milliseconds, so a store without a movable clock
 * waits under 1 s in all.
 */
export const runAccessTokenAllowlistSuite: (options: {
  name?: string;
  create: () => AccessTokenAllowlistFixture | Promise<AccessTokenAllowlistFixture>;
}) => void = defineStoreSuite("AccessTokenAllowlist", allowlistContext, {
  "": {
    "createAccessTokenId - when a store mints ids, they are unique base64url of 16-64 characters": ({
      store,
    }) => {
      const sessionId = uniqueId("session");
      expectMintedIds(Array.from({ length: 200 }, () => store.createAccessTokenId?.(sessionId)));
    },
    "allowAccessToken - the jti is found with its user and session": async ({ store, allowedToken }) => {
      const { jti, entry } = await allowedToken();
      expect(await store.findAllowedAccessToken(jti)).toEqual(entry);
    },
    "findAllowedAccessToken - null for a jti that was never allowed": async ({ store }) => {
      expect(await store.findAllowedAccessToken(uniqueId("missing"))).toBeNull();
    },
    "allowAccessToken - the entry reads as absent after ttlMs; longer-lived ones stay": async ({
      store,
      fixture,
      allowedToken,
    }) => {
      const long = await allowedToken();
      const short = await allowedToken(200);
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(short.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(long.jti)).toEqual(long.entry);
    },
    "allowAccessToken - allowing a jti again replaces its entry and lifetime": async ({
      store,
      fixture,
      newToken,
    }) => {
      const { jti, entry } = newToken();
      await store.allowAccessToken(jti, entry, 200);
      const replaced = { ...entry, sessionId: uniqueId("session") };
      await store.allowAccessToken(jti, replaced, TTL_MS);
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(jti)).toEqual(replaced);
    },
  },
  revocation: {
    "revokeAccessTokens - takes the jtis given off the allowlist, and no other": async ({
      store,
      allowedToken,
    }) => {
      const [first, second, kept] = [await allowedToken(), await allowedToken(), await allowedToken()];
      await store.revokeAccessTokens([first.jti, second.jti]);
      expect(await store.findAllowedAccessToken(first.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(second.jti)).toBeNull();
      expect(await store.findAllowedAccessToken(kept.jti)).toEqual(kept.entry);
    },
    "revokeAccessTokens - unknown and already revoked jtis are skipped; an empty list is a no-op": async ({
      store,
      allowedToken,
    }) => {
      const token = await allowedToken();
      await store.revokeAccessTokens([]);
      expect(await store.findAllowedAccessToken(token.jti)).toEqual(token.entry);
      await store.revokeAccessTokens([uniqueId("missing"), token.jti]);
      await store.revokeAccessTokens([token.jti]);
      expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
    },
    "revokeAccessTokens - jtis of several users' sessions in one call": async ({ store, allowedToken }) => {
      const tokens = await Promise.all(Array.from({ length: 5 }, () => allowedToken()));
      await store.revokeAccessTokens(tokens.map((token) => token.jti));
      for (const token of tokens) expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
    },
  },
  concurrency: {
    "allowAccessToken - 20 concurrent allows of one session's new jtis: every one is found": async ({
      store,
      newToken,
    }) => {
      const sessionId = uniqueId("session");
      const tokens = Array.from({ length: 20 }, () => newToken(sessionId));
      await concurrently(20, (i) => {
        const token = tokens[i] as (typeof tokens)[number];
        return store.allowAccessToken(token.jti, token.entry, TTL_MS);
      });
      const found = await concurrently(20, (i) => store.findAllowedAccessToken(tokens[i]?.jti ?? ""));
      expect(found).toEqual(tokens.map((token) => token.entry));
    },
    "revokeAccessTokens - 20 concurrent revocations of overlapping lists: none is left, the others stay":
      async ({ store, allowedToken }) => {
        const tokens = await Promise.all(Array.from({ length: 10 }, () => allowedToken()));
        const kept = await allowedToken();
        await concurrently(20, (i) =>
          store.revokeAccessTokens(tokens.slice(i % 5, (i % 5) + 6).map((token) => token.jti)),
        );
        for (const token of tokens) expect(await store.findAllowedAccessToken(token.jti)).toBeNull();
        expect(await store.findAllowedAccessToken(kept.jti)).toEqual(kept.entry);
      },
  },
  "with the user (optional joint.findAllowedAccessTokenWithUser)": {
    "joint.findAllowedAccessTokenWithUser - the entry and the user's record, as findAllowedAccessToken and findById answer":
      async ({ store, joint }) => {
        const with_ = joint();
        if (with_ === null) return;
        const { user, jti, entry } = await with_.allowedForUser();
        expect(await with_.read(jti)).toEqual({ entry, user: await with_.users.findById(user.id) });
        expect(await store.findAllowedAccessToken(jti)).toEqual(entry);
      },
    "joint.findAllowedAccessTokenWithUser - null for a jti never allowed": async ({ joint }) => {
      const with_ = joint();
      if (with_ === null) return;
      expect(await with_.read(uniqueId("missing"))).toBeNull();
    },
    "joint.findAllowedAccessTokenWithUser - a revoked jti is null on the very next read": async ({
      store,
      joint,
    }) => {
      const with_ = joint();
      if (with_ === null) return;
      const { jti, entry } = await with_.allowedForUser();
      expect((await with_.read(jti))?.entry).toEqual(entry);
      await store.revokeAccessTokens([jti]);
      expect(await with_.read(jti)).toBeNull();
    },
    "joint.findAllowedAccessTokenWithUser - null once the entry's ttlMs has passed": async ({
      fixture,
      joint,
    }) => {
      const with_ = joint();
      if (with_ === null) return;
      const { jti } = await with_.allowedForUser(200);
      await elapse(fixture, 260);
      expect(await with_.read(jti)).toBeNull();
    },
    "joint.findAllowedAccessTokenWithUser - the user's latest record; null for a deleted user, the entry kept":
      async ({ joint }) => {
        const with_ = joint();
        if (with_ === null) return;
        const { user, jti, entry } = await with_.allowedForUser();
        await with_.users.update(user.id, { name: "Grace", emailVerified: false });
        expect((await with_.read(jti))?.user).toMatchObject({
          id: user.id,
          name: "Grace",
          emailVerified: false,
        });
        await with_.users.delete(user.id);
        expect(await with_.read(jti)).toEqual({ entry, user: null });
      },
  },
  "with the membership (optional joint.findAllowedAccessTokenWithMembership)": ALLOWLIST_MEMBERSHIP_TESTS,
  "with the sign-in's end (optional joint.allowAccessTokenWithSessionAndRecordSignIn)":
    ALLOWLIST_SIGN_IN_TESTS,
  "with the refresh's rotation (optional joint.rotateRefreshTokenWithAccessToken)": ALLOWLIST_ROTATION_TESTS,
  "with the session (optional joint.allowAccessTokenWithSession)": {
    "joint.allowAccessTokenWithSession - the entry and the session read as the two calls would have stored them":
      async ({ store, jointWrite }) => {
        const joint = jointWrite();
        if (joint === null) return;
        const { jti, entry, session } = await joint.write();
        expect(await store.findAllowedAccessToken(jti)).toEqual(entry);
        expect(await joint.sessions.getSession(session.id)).toEqual(session);
        // The same session and jti through the two calls read alike.
        const apart = joint.prepare();
        await store.allowAccessToken(apart.jti, apart.entry, TTL_MS);
        await joint.sessions.createSession(apart.session, TTL_MS);
        expect(await joint.sessions.getSession(apart.session.id)).toEqual(apart.session);
      },
    "joint.allowAccessTokenWithSession - each part expires on its own ttl": async ({
      store,
      fixture,
      jointWrite,
    }) => {
      const joint = jointWrite();
      if (joint === null) return;
      const shortEntry = await joint.write(undefined, { ttlMs: 200 });
      const shortSession = await joint.write(undefined, { sessionTtlMs: 200 });
      await elapse(fixture, 260);
      expect(await store.findAllowedAccessToken(shortEntry.jti)).toBeNull();
      expect(await joint.sessions.getSession(shortEntry.session.id)).toEqual(shortEntry.session);
      expect(await store.findAllowedAccessToken(shortSession.jti)).toEqual(shortSession.entry);
      expect(await joint.sessions.getSession(shortSession.session.id)).toBeNull();
    },
    "joint.allowAccessTokenWithSession - a session of the same id is replaced, as createSession does":
      async ({ store, jointWrite }) => {
        const joint = jointWrite();
        if (joint === null) return;
        const first = await joint.write();
        // The store's own jti for the session when it mints them.
        const again = { ...first, jti: store.createAccessTokenId?.(first.session.id) ?? uniqueId("jti") };
        again.session = { ...first.session, accessTokenJti: again.jti, refreshTokenHash: uniqueId("hash") };
        await joint.write(again);
        expect(await joint.sessions.getSession(first.session.id)).toEqual(again.session);
        expect(await store.findAllowedAccessToken(again.jti)).toEqual(first.entry);
      },
    "joint.allowAccessTokenWithSession - 20 concurrent sign-ins of one user: every session and entry is found":
      async ({ store, jointWrite }) => {
        const joint = jointWrite();
        if (joint === null) return;
        const userId = uniqueId("user");
        const made = Array.from({ length: 20 }, () => joint.prepare(userId));
        await concurrently(20, (i) => joint.write(made[i]));
        for (const one of made) expect(await store.findAllowedAccessToken(one.jti)).toEqual(one.entry);
        const listed = await joint.sessions.listSessions(userId);
        expect(listed.map((session) => session.id).sort()).toEqual(made.map((one) => one.session.id).sort());
      },
  },
  copies: {
    "allowAccessToken / findAllowedAccessToken - entries are copies both ways": async ({
      store,
      newToken,
    }) => {
      const { jti, entry } = newToken();
      const original = { ...entry };
      await store.allowAccessToken(jti, entry, TTL_MS);
      entry.userId = "changed";
      const found = await store.findAllowedAccessToken(jti);
      if (found) found.sessionId = "changed";
      expect(await store.findAllowedAccessToken(jti)).toEqual(original);
    },
  },
});
