import type {
  AccessTokenAllowlist,
  CooldownKeys,
  JointStores,
  SessionStore,
  UserRecord,
  UserStore,
} from "@portcullis/core";
import { expect } from "vitest";
import { concurrently, type StoreFixture, sampleSession, sampleUser, uniqueId } from "./store-fixture.js";

/** An access token's lifetime in these tests (15 minutes), in milliseconds. */
const TTL_MS = 900_000;
const HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2g";

/** What the sign-in write's tests need of the allowlist suite's context. */
interface SignInWriteContext {
  store: AccessTokenAllowlist;
  fixture: StoreFixture<AccessTokenAllowlist> & {
    joint?: JointStores;
    users?: UserStore;
    sessions?: SessionStore;
  };
}

/** A user with a password, never signed in. */
const newUser = (): UserRecord => sampleUser({ passwordHash: HASH });

/**
 * The fixture's joint sign-in write and the stores it writes, when it has one (null: nothing to
 * check). `signIn(userId, passwordHash, at)` writes a new session of `userId` made at `at` and its
 * entry through the joint call, and answers what it read with them.
 */
function signInWrite({ store, fixture }: SignInWriteContext) {
  const composite = fixture.joint;
  const write = composite?.allowAccessTokenWithSessionAndRecordSignIn;
  if (write === undefined) return null;
  const { users, sessions } = fixture;
  if (users === undefined || sessions === undefined)
    throw new Error(
      "a fixture whose joint has allowAccessTokenWithSessionAndRecordSignIn needs `users` and `sessions`",
    );
  const signIn = async (
    userId: string,
    passwordHash: string | undefined,
    at = 1_700_000_100_000,
    clear?: CooldownKeys,
  ) => {
    const made = sampleSession(sessions, { userId });
    const jti = store.createAccessTokenId?.(made.id) ?? made.accessTokenJti;
    const session = { ...made, accessTokenJti: jti, createdAt: at, lastActiveAt: at };
    const entry = { userId, sessionId: session.id };
    const read = await write.call(composite, jti, entry, TTL_MS, session, TTL_MS, passwordHash, clear);
    return { read, session, jti, entry };
  };
  const created = async () => {
    const user = newUser();
    expect(await users.create(user)).not.toBeNull();
    return user;
  };
  return { users, sessions, signIn, created };
}

/**
 * The allowlist suite's tests of `joint.allowAccessTokenWithSessionAndRecordSignIn`: what it reads,
 * records and writes, against `recordSignInIfUnchanged` and the two writes it stands for.
 */
export const ALLOWLIST_SIGN_IN_TESTS = {
  "joint.allowAccessTokenWithSessionAndRecordSignIn - the session and its entry written, the user as read, the sign-in recorded":
    async (context: SignInWriteContext) => {
      const joint = signInWrite(context);
      if (joint === null) return;
      const user = await joint.created();
      const first = await joint.signIn(user.id, HASH);
      expect(first.read).toEqual(user);
      expect(await context.store.findAllowedAccessToken(first.jti)).toEqual(first.entry);
      expect(await joint.sessions.getSession(first.session.id)).toEqual(first.session);
      expect(await joint.users.findById(user.id)).toEqual({ ...user, lastSignInAt: 1_700_000_100_000 });
      // Without a hash (a sign-in by another method) only the lock is checked.
      const second = await joint.signIn(user.id, undefined, 1_700_000_200_000);
      expect(second.read).toEqual({ ...user, lastSignInAt: 1_700_000_100_000 });
      expect((await joint.users.findById(user.id))?.lastSignInAt).toBe(1_700_000_200_000);
    },
  "joint.allowAccessTokenWithSessionAndRecordSignIn - another hash or a lock: the record as it is, nothing recorded, the session still written":
    async (context: SignInWriteContext) => {
      const joint = signInWrite(context);
      if (joint === null) return;
      const user = await joint.created();
      const changed = await joint.signIn(user.id, "$argon2id$another");
      expect(changed.read).toEqual(user);
      expect((await joint.users.findById(user.id))?.lastSignInAt ?? null).toBeNull();
      expect(await joint.sessions.getSession(changed.session.id)).toEqual(changed.session);
      const locked = await joint.users.update(user.id, {
        lockedAt: 1_700_000_050_000,
        lockReason: null,
        lockedBy: null,
      });
      expect((await joint.signIn(user.id, HASH)).read).toEqual(locked);
      expect((await joint.signIn(user.id, undefined)).read).toEqual(locked);
      expect(await joint.users.findById(user.id)).toEqual(locked);
    },
  "joint.allowAccessTokenWithSessionAndRecordSignIn - an unknown user reads null; the session and entry are written as given":
    async (context: SignInWriteContext) => {
      const joint = signInWrite(context);
      if (joint === null) return;
      const missing = uniqueId("missing");
      const { read, session, jti, entry } = await joint.signIn(missing, HASH);
      expect(read).toBeNull();
      expect(await joint.users.findById(missing)).toBeNull();
      expect(await context.store.findAllowedAccessToken(jti)).toEqual(entry);
      expect(await joint.sessions.getSession(session.id)).toEqual(session);
    },
  "joint.allowAccessTokenWithSessionAndRecordSignIn - with clear: the counters and cooldowns named are gone from joint.cooldowns, no other, whatever the read finds":
    async (context: SignInWriteContext) => {
      const joint = signInWrite(context);
      const cooldowns = context.fixture.joint?.cooldowns;
      if (joint === null || cooldowns === undefined) return;
      const key = (name: string) => uniqueId(`throttle:${name}`);
      const [counter, otherCounter, lock, otherLock] = [key("c"), key("c"), key("l"), key("l")];
      const long = `${key("c")}:${"x".repeat(300)}`;
      const prime = async () => {
        for (const counterKey of [counter, otherCounter, long]) {
          await cooldowns.hit(counterKey, 60_000);
          expect((await cooldowns.hit(counterKey, 60_000)).count).toBe(2);
        }
        for (const cooldownKey of [lock, otherLock]) await cooldowns.acquire(cooldownKey, 60_000);
      };
      const cleared = async () => {
        expect((await cooldowns.hit(counter, 60_000)).count).toBe(1);
        expect((await cooldowns.hit(long, 60_000)).count).toBe(1);
        expect((await cooldowns.hit(otherCounter, 60_000)).count).toBe(3);
        expect(await cooldowns.remainingMs(lock)).toBe(0);
        expect(await cooldowns.remainingMs(otherLock)).toBeGreaterThan(0);
        for (const counterKey of [counter, otherCounter, long]) await cooldowns.clearHits(counterKey);
        await cooldowns.release(otherLock);
      };
      const clear = { counterKeys: [counter, long], cooldownKeys: [lock] };
      const user = await joint.created();
      await prime();
      const { read, jti, entry } = await joint.signIn(user.id, HASH, 1_700_000_100_000, clear);
      expect(read).toEqual(user);
      expect(await context.store.findAllowedAccessToken(jti)).toEqual(entry);
      await cleared();
      // Another hash, or an unknown user: cleared all the same (the password was right when checked).
      await prime();
      await joint.signIn(user.id, "$argon2id$another", 1_700_000_200_000, clear);
      await cleared();
      await prime();
      expect((await joint.signIn(uniqueId("missing"), HASH, 1_700_000_300_000, clear)).read).toBeNull();
      await cleared();
      // Without clear nothing of the cooldowns changes.
      await prime();
      await joint.signIn(user.id, HASH, 1_700_000_400_000);
      expect((await cooldowns.hit(counter, 60_000)).count).toBe(3);
      expect(await cooldowns.remainingMs(lock)).toBeGreaterThan(0);
    },
  "joint.hitAndFindUserByEmail - counts as cooldowns.hit does, 20 at once each counted once, and reads the user as users.findByEmail":
    async (context: SignInWriteContext) => {
      const joint = context.fixture.joint;
      const hitAndFind = joint?.hitAndFindUserByEmail;
      const cooldowns = joint?.cooldowns;
      const users = context.fixture.users;
      if (hitAndFind === undefined || cooldowns === undefined || users === undefined) return;
      const user = newUser();
      expect(await users.create(user)).not.toBeNull();
      const key = uniqueId("throttle:password");
      const first = await hitAndFind.call(joint, key, 60_000, user.email);
      expect(first.count).toBe(1);
      expect(first.remainingMs).toBeGreaterThan(0);
      expect(first.remainingMs).toBeLessThanOrEqual(60_000);
      expect(first.user).toEqual(await users.findByEmail(user.email));
      const missing = await hitAndFind.call(joint, key, 60_000, `${uniqueId("nobody")}@example.test`);
      expect(missing).toMatchObject({ count: 2, user: null });
      // The same counter as the store's own hit, counted atomically under concurrency.
      expect((await cooldowns.hit(key, 60_000)).count).toBe(3);
      const counts = await concurrently(20, () => hitAndFind.call(joint, key, 60_000, user.email));
      expect(counts.map((result) => result.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 4),
      );
      expect(counts.every((result) => result.user?.id === user.id)).toBe(true);
      // A key with a long name (the store may hash it) is the store's key all the same.
      const long = `${uniqueId("throttle:password")}:${"y".repeat(300)}`;
      await cooldowns.hit(long, 60_000);
      expect((await hitAndFind.call(joint, long, 60_000, user.email)).count).toBe(2);
      await cooldowns.clearHits(key);
      await cooldowns.clearHits(long);
    },
  "joint.allowAccessTokenWithSessionAndRecordSignIn - 20 concurrent sign-ins of one user: every session written, exactly one reads it never signed in":
    async (context: SignInWriteContext) => {
      const joint = signInWrite(context);
      if (joint === null) return;
      const user = await joint.created();
      const results = await concurrently(20, (i) => joint.signIn(user.id, HASH, 1_700_000_100_000 + i));
      const firsts = results.filter((result) => result.read?.lastSignInAt == null);
      expect(firsts).toHaveLength(1);
      for (const { jti, entry } of results)
        expect(await context.store.findAllowedAccessToken(jti)).toEqual(entry);
      const listed = await joint.sessions.listSessions(user.id);
      expect(listed.map((session) => session.id).sort()).toEqual(
        results.map((result) => result.session.id).sort(),
      );
    },
};
