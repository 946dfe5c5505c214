import { type AuthStores, createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { createFakeClock } from "@portcullis/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { countedPostgres } from "./test-databases.js";

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
      const auth = createAuth({
        secret: "joint-session-write-secret-Vb4kQ9xTz2Lm7RwHc8NdJ3FpGs6YeUa",
        stores,
        logger: silentLogger,
        passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
        email: { enabled: false },
      });
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
          /^(with "allowed" as|insert into "portcullis_(access_tokens|sessions)")/.test(text),
        );
    };
    expect(await sessionWrites({ ...apart, joint })).toEqual([
      expect.stringMatching(/^with "allowed" as \(insert into "portcullis_access/),
    ]);
    expect(await sessionWrites(apart)).toEqual([
      expect.stringMatching(/^insert into "portcullis_access_tokens"/),
      expect.stringMatching(/^insert into "portcullis_sessions"/),
    ]);
  });
});
