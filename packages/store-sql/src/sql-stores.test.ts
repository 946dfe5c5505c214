import { createFakeClock, sampleUserRecord } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { checkAllowlistUpgrade } from "./allowlist-upgrade.js";
import { checkApiKeysUpgrade } from "./api-keys-upgrade.js";
import { EVERY_MIGRATION, migrationsAfter } from "./migration-names.js";
import { createSqlMigrator, migrate } from "./migrations.js";
import { checkOrganizationsUpgrade } from "./organizations-upgrade.js";
import { createSqlStores } from "./sql-stores.js";
import { sqliteDb } from "./test-databases.js";

const user = (id: string) => sampleUserRecord({ id });
const session = { id: "s1", userId: "u1", browser: null, os: null, ip: null, createdAt: 1, lastActiveAt: 1 };

describe("createSqlStores", () => {
  it("migrate - creates the tables once; a second run applies nothing", async () => {
    const db = sqliteDb();
    expect(await migrate(db)).toEqual(EVERY_MIGRATION);
    expect(await migrate(db)).toEqual([]);
    await db.destroy();
  });

  it("migrate - 0003 adds last_sign_in_at to a database at 0002: existing users read as never signed in", async () => {
    const db = sqliteDb();
    const stores = createSqlStores({ db });
    await createSqlMigrator(db).migrateTo("0002_identities");
    expect(await stores.users.create(user("u1"))).toEqual(user("u1"));
    expect(await migrate(db)).toEqual(migrationsAfter("0002_identities"));
    expect(await stores.users.findById("u1")).toEqual(user("u1"));
    expect(await stores.users.recordSignIn?.("u1", 5)).toBe(true);
    expect(await stores.users.recordSignIn?.("u1", 6)).toBe(false);
    expect(await stores.users.findById("u1")).toEqual({ ...user("u1"), lastSignInAt: 6 });
    await db.destroy();
  });

  it("migrate - 0004 adds claimed_until to tokens at 0003: a token saved before can be claimed once", async () => {
    const db = sqliteDb();
    const stores = createSqlStores({ db });
    await createSqlMigrator(db).migrateTo("0003_last_sign_in");
    const token = {
      purpose: "password-reset",
      tokenHash: "h1",
      userId: "u1",
      expiresAt: Date.now() + 60_000,
    };
    await db
      .insertInto("portcullis_tokens")
      .values({
        purpose: token.purpose,
        token_hash: token.tokenHash,
        user_id: token.userId,
        expires_at: token.expiresAt,
        data: null,
        delete_at: token.expiresAt,
      })
      .execute();
    expect(await migrate(db)).toEqual(migrationsAfter("0003_last_sign_in"));
    expect(await stores.singleUseTokens.claimToken?.(token.purpose, token.tokenHash, 60_000)).toEqual(token);
    expect(await stores.singleUseTokens.claimToken?.(token.purpose, token.tokenHash, 60_000)).toBeNull();
    await db.destroy();
  });

  it("migrate - 0005 moves every session's access token to the allowlist: tokens issued before keep working", async () => {
    const db = sqliteDb();
    await checkAllowlistUpgrade(db);
    await db.destroy();
  });

  it("migrate - 0013 adds organizations and the session's active organization: existing sessions have none", async () => {
    const db = sqliteDb();
    await checkOrganizationsUpgrade(db);
    await db.destroy();
  });

  it("migrate - 0014 adds API keys beside an existing organization: its keys go with it", async () => {
    const db = sqliteDb();
    await checkApiKeysUpgrade(db);
    await db.destroy();
  });

  it("tablePrefix - stores with different prefixes share a database without seeing each other", async () => {
    const db = sqliteDb();
    const [a, b] = [createSqlStores({ db }), createSqlStores({ db, tablePrefix: "other_" })];
    await Promise.all([a.migrate(), b.migrate()]);
    expect(await a.users.create(user("a"))).not.toBeNull();
    expect(await b.users.create(user("b"))).not.toBeNull();
    expect((await b.users.findByEmail("ada@example.test"))?.id).toBe("b");
    expect(() => createSqlStores({ db, tablePrefix: "bad-prefix;" })).toThrow(/tablePrefix/);
    await db.destroy();
  });

  it("sweep - deletes every expired row, and only those; a missing table rejects", async () => {
    const db = sqliteDb();
    const clock = createFakeClock();
    const stores = createSqlStores({ db, clock });
    await expect(stores.sweep()).rejects.toThrow();
    await stores.migrate();
    const token = { purpose: "p", tokenHash: "h", userId: "u1", expiresAt: 0 };
    for (const ttl of [1_000, 5_000]) {
      await stores.sessions.createSession(
        { ...session, id: `s${ttl}`, refreshTokenHash: `r${ttl}`, accessTokenJti: `j${ttl}` },
        ttl,
      );
      await stores.allowlist.allowAccessToken(
        `j${ttl}`,
        { userId: session.userId, sessionId: `s${ttl}` },
        ttl,
      );
      await stores.singleUseTokens.saveToken({ ...token, tokenHash: `h${ttl}` }, ttl);
      await stores.cooldowns.acquire(`k${ttl}`, ttl);
      await stores.cooldowns.hit(`k${ttl}`, ttl);
      await stores.organizations.createInvitation({
        id: `i${ttl}`,
        organizationId: "o1",
        email: `i${ttl}@example.test`,
        role: "member",
        tokenHash: `t${ttl}`,
        invitedBy: "u1",
        createdAt: clock.now(),
        expiresAt: clock.now() + ttl,
      });
    }
    clock.advance(1_000);
    expect(await stores.sweep()).toBe(6);
    expect(await stores.sweep()).toBe(0);
    expect(await stores.sessions.getSession("s5000")).not.toBeNull();
    expect(await stores.organizations.findInvitationByTokenHash("t5000")).not.toBeNull();
    expect(await stores.organizations.findInvitationByTokenHash("t1000")).toBeNull();
    clock.advance(4_000);
    expect(await stores.sweep()).toBe(6);
    await db.destroy();
  });
});
