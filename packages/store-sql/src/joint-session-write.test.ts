import { type AuthStores, createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { countedPostgres } from "./test-databases.js";

/** An Auth on `stores` for these tests: cheap argon2id, no emails; `options` added. */
const authOn = (
  stores: AuthStores,
  options: { ipLimits?: { enabled: boolean }; loginThrottle?: { freeAttempts: number } } = {},
) =>
  createAuth({
    secret: "joint-session-write-secret-Vb4kQ9xTz2Lm7RwHc8NdJ3FpGs6YeUa",
    stores,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
    ...options,
  });
/** A login budget of three free attempts, counted per address only. */
const THREE_FREE_ATTEMPTS = { ipLimits: { enabled: false }, loginThrottle: { freeAttempts: 3 } };

// On PostgreSQL a sign-in's new session and its access token's allowlist entry are one statement:
// both rows or neither, even when the second insert fails after the first ran.
describe("a new session and its allowlist entry in one statement on PostgreSQL", () => {
  let postgres: Awaited<ReturnType<typeof countedPostgres>>;
  let db: AnyKysely;
  let counting: { on: boolean; statements: string[] };
  beforeAll(async () => {
    postgres = await countedPostgres();
    ({ db, counting } = postgres);
    await migrate(db);
    // A constraint of this test's own, so the session's insert fails after the entry's ran.
    await sql`alter table portcullis_sessions add constraint refused_browser check (browser <> 'Refused')`.execute(
      db,
    );
  }, 60_000);
  afterAll(() => postgres?.close(), 60_000);

  const session = (id: string, browser: string) => ({
    id,
    userId: "u1",
    browser,
    os: "Linux",
    ip: null,
    createdAt: 1,
    lastActiveAt: 1,
    refreshTokenHash: `hash-${id}`,
    accessTokenJti: `jti-${id}`,
  });

  it("one statement writes both; a session insert that fails leaves no allowlist entry", async () => {
    const { allowlist, sessions, joint } = createSqlStores({ db, clock: createFakeClock() });
    const write = joint.allowAccessTokenWithSession;
    expect(write).toBeDefined();
    if (!write) return;
    const entry = (id: string) => ({ userId: "u1", sessionId: id });

    counting.on = true;
    const kept = session("kept", "Firefox 130");
    await write.call(joint, "jti-kept", entry("kept"), 60_000, kept, 3_600_000);
    counting.on = false;
    expect(counting.statements).toHaveLength(1);
    expect(counting.statements[0]).toMatch(/^with "allowed" as \(insert into "portcullis_access_tokens"/);
    expect(await allowlist.findAllowedAccessToken("jti-kept")).toEqual(entry("kept"));
    expect(await sessions.getSession("kept")).toEqual(kept);

    const refused = session("refused", "Refused");
    await expect(
      write.call(joint, "jti-refused", entry("refused"), 60_000, refused, 3_600_000),
    ).rejects.toThrow(/refused_browser/);
    expect(await allowlist.findAllowedAccessToken("jti-refused")).toBeNull();
    expect(await sessions.getSession("refused")).toBeNull();
    // The two calls apart, for contrast: the entry stays when the session's insert fails.
    await allowlist.allowAccessToken("jti-apart", entry("apart"), 60_000);
    await expect(sessions.createSession(session("apart", "Refused"), 3_600_000)).rejects.toThrow();
    expect(await allowlist.findAllowedAccessToken("jti-apart")).toEqual(entry("apart"));
  });

  it("the sign-in's end: one statement that waits for a password set under way and reads its hash, so the core ends the session", async () => {
    const clock = createFakeClock();
    const { users, joint } = createSqlStores({ db, clock });
    const write = joint.allowAccessTokenWithSessionAndRecordSignIn;
    expect(write).toBeDefined();
    if (!write) return;
    const user = {
      id: "racing",
      email: "racing@example.test",
      emailVerified: true,
      name: "Ada",
      passwordHash: "$argon2id$old",
      identityProviders: [],
      twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
      createdAt: 1,
    };
    await users.create(user);
    const at = (id: string) => ({ ...session(id, "Firefox 130"), userId: "racing", createdAt: 5 });
    const entry = (id: string) => ({ userId: "racing", sessionId: id });

    counting.statements = [];
    counting.on = true;
    expect(
      await write.call(joint, "jti-first", entry("first"), 60_000, at("first"), 3_600_000, "$argon2id$old"),
    ).toEqual(user);
    counting.on = false;
    expect(counting.statements).toHaveLength(1);
    expect(counting.statements[0]).toMatch(
      /^with "before" as \(select \* from "portcullis_users" where "id" = \$1 for update\)/,
    );
    expect((await users.findById("racing"))?.lastSignInAt).toBe(5);

    // A password set holds the user's row (its UPDATE, not yet committed) while the sign-in writes.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let updated = () => {};
    const rowHeld = new Promise<void>((resolve) => {
      updated = resolve;
    });
    const passwordSet = db.transaction().execute(async (trx) => {
      await sql`update portcullis_users set password_hash = '$argon2id$new' where id = 'racing'`.execute(trx);
      updated();
      await held;
    });
    await rowHeld;
    let settled = false;
    const signIn = write
      .call(joint, "jti-racing", entry("racing"), 60_000, at("racing"), 3_600_000, "$argon2id$old")
      .finally(() => {
        settled = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(settled).toBe(false);
    release();
    await passwordSet;
    // It read the row as the password set left it: the new hash, so the core ends this session.
    expect((await signIn)?.passwordHash).toBe("$argon2id$new");
    expect((await users.findById("racing"))?.lastSignInAt).toBe(5);
  });

  it("login - stores copied apart, with joint given: one joint statement; with joint left out: the entry's insert, then the session's", async () => {
    const { joint, ...made } = createSqlStores({ db, clock: createFakeClock() });
    // Copies: no store given below is an object createSqlStores returned; nothing compares them.
    const apart = {
      ...made,
      users: { ...made.users },
      sessions: { ...made.sessions },
      allowlist: { ...made.allowlist },
    };
    let n = 0;
    const sessionWrites = async (stores: AuthStores) => {
      const auth = authOn(stores);
      n += 1;
      const credentials = { email: `apart${n}@example.test`, password: "correct horse battery staple" };
      await auth.register({}, credentials);
      counting.statements = [];
      counting.on = true;
      try {
        expect((await auth.login({}, credentials)).twoFactorRequired).toBe(false);
      } finally {
        counting.on = false;
      }
      return counting.statements
        .map((text) => text.replace(/\s+/g, " "))
        .filter((text) =>
          /^(with "(allowed|before)" as|insert into "portcullis_(access_tokens|sessions)")/.test(text),
        );
    };
    // With joint, a password sign-in's session, entry and re-read are the one statement.
    expect(await sessionWrites({ ...apart, joint })).toEqual([
      expect.stringMatching(
        /^with "before" as \(select \* from "portcullis_users" .*insert into "portcullis_access_tokens" .*insert into "portcullis_sessions"/,
      ),
    ]);
    expect(await sessionWrites(apart)).toEqual([
      expect.stringMatching(/^insert into "portcullis_access_tokens"/),
      expect.stringMatching(/^insert into "portcullis_sessions"/),
    ]);
  });

  /**
   * A password sign-in's throttle clearing: with `stores.cooldowns` the joint's own, the session's
   * statement deletes the address's counter and locks (no `clearKeys` statement); with a cooldown
   * store of the host's own, that store's `clearKeys` does. Either way the right password gives the
   * address its whole budget back, also when the account is locked (no session then).
   */
  it("login - the right password's throttle clearing rides on the session's statement only while stores.cooldowns is joint.cooldowns", async () => {
    const stores = createSqlStores({ db, clock: createFakeClock() });
    const cleared: string[][] = [];
    const own = {
      ...stores.cooldowns,
      clearKeys: async (counterKeys: readonly string[], cooldownKeys: readonly string[]) => {
        cleared.push([...counterKeys, ...cooldownKeys]);
        await stores.cooldowns.clearKeys?.(counterKeys, cooldownKeys);
      },
    };
    let n = 0;
    const scenario = async (given: AuthStores, lock: boolean) => {
      const auth = authOn(given, THREE_FREE_ATTEMPTS);
      n += 1;
      const credentials = { email: `throttled${n}@example.test`, password: "correct horse battery staple" };
      const wrong = { ...credentials, password: "not the password at all" };
      await auth.register({}, credentials);
      const user = await stores.users.findByEmail(credentials.email);
      if (lock && user) await stores.users.update(user.id, { lockedAt: 1, lockReason: null, lockedBy: null });
      const failed = () =>
        expect(auth.login({}, wrong)).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
      await failed();
      await failed();
      counting.statements = [];
      counting.on = true;
      try {
        if (lock) await expect(auth.login({}, credentials)).rejects.toMatchObject({ code: "ACCOUNT_LOCKED" });
        else expect((await auth.login({}, credentials)).twoFactorRequired).toBe(false);
      } finally {
        counting.on = false;
      }
      const statements = counting.statements.map((text) => text.replace(/\s+/g, " "));
      // The budget is whole again: three more wrong passwords are each a 401, not a 429.
      for (let i = 0; i < 3; i++) await failed();
      await expect(auth.login({}, wrong)).rejects.toMatchObject({ code: "LOGIN_THROTTLED" });
      // The statements that clear only (`clearKeys`), beside the session's.
      return statements.filter((text) => /^with "cleared_counters" as \(delete/.test(text)).length;
    };
    expect(await scenario(stores, false)).toBe(0);
    // Locked: no session, so the clearing is its own statement.
    expect(await scenario(stores, true)).toBe(1);
    expect(cleared).toEqual([]);
    // The session's statement fails (this file's constraint refuses the browser): nothing it was to
    // clear is cleared by it, so the right password clears the budget by its own statement. Three
    // such sign-ins in a row never lock the address.
    const refusedSession = async () => {
      const auth = authOn(stores, THREE_FREE_ATTEMPTS);
      const credentials = { email: "refused-session@example.test", password: "correct horse battery staple" };
      await auth.register({}, credentials);
      const wrong = { ...credentials, password: "not the password at all" };
      await expect(auth.login({}, wrong)).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
      for (let i = 0; i < 3; i++)
        await expect(
          auth.login({}, { ...credentials, session: { browser: "Refused", os: "Linux" } }),
        ).rejects.toMatchObject({ code: "DATABASE_FAILURE" });
      for (let i = 0; i < 3; i++)
        await expect(auth.login({}, wrong)).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" });
      await expect(auth.login({}, wrong)).rejects.toMatchObject({ code: "LOGIN_THROTTLED" });
    };
    await refusedSession();
    // The host's own cooldown store: its clearKeys clears (the session's statement gets no keys).
    expect(await scenario({ ...stores, cooldowns: own }, false)).toBe(1);
    expect(cleared).toEqual([[expect.stringMatching(/^throttle:/), expect.any(String), expect.any(String)]]);
  });
});
