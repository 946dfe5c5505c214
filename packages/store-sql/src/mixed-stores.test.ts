import { once } from "node:events";
import { createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStores } from "../../store-memory/src/index.js";
import { createRedisClient, createRedisStores } from "../../store-redis/src/index.js";
import { deleteKeys, testPrefix, useRedis } from "../../store-redis/src/test-redis.js";
import type { AnyKysely } from "./context.js";
import { createSqlStores } from "./sql-stores.js";
import { sqliteDb } from "./test-databases.js";

// A host takes each port from another package: sessions in memory, the access-token allowlist on
// Redis, single-use tokens in SQL (SQLite), users and cooldowns in memory. Mixing stores, it
// leaves out the composites a package builds for its own stores (store-sql's `together` and
// `joint`): a reset then writes to each store in turn, in its fail-safe order.
let redis: Awaited<ReturnType<typeof useRedis>>;
let client: ReturnType<typeof createRedisClient>;
let db: AnyKysely;
const keyPrefix = testPrefix();
beforeAll(async () => {
  redis = await useRedis();
  client = createRedisClient(redis.url, { commandTimeout: 2_000 });
  await once(client, "ready");
  db = sqliteDb();
});
afterAll(async () => {
  await deleteKeys(client, keyPrefix);
  client.disconnect();
  await db.destroy();
  await redis.stop();
});

/** `createAuth` over memory users, cooldowns and sessions, a Redis allowlist and SQL single-use tokens. */
async function mixedAuth() {
  const memory = createMemoryStores({ sweepIntervalMs: 0 });
  const sql = createSqlStores({ db });
  await sql.migrate();
  const { allowlist } = createRedisStores({ client, keyPrefix });
  const sent: string[] = [];
  const auth = createAuth({
    secret: "mixed-stores-secret-4mVqN9xYp2Lk7RwTz8HcJd3FbGs6QeUa",
    // Neither `sql.together` nor `sql.joint`: they stand for store-sql's own four and three stores.
    stores: { ...memory, allowlist, singleUseTokens: sql.singleUseTokens },
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    mailer: { send: async (message) => void sent.push(message.html) },
    appOrigin: "https://app.example.test",
    email: { enabled: true, loginAlerts: false },
  });
  return { auth, memory, allowlist, sent };
}

describe("stores from three packages", () => {
  it("createAuth - memory sessions, a Redis allowlist and SQL single-use tokens: login, refresh, reset link, logout", async () => {
    const { auth, memory, allowlist } = await mixedAuth();
    await auth.register({}, { email: "ada@example.test", password: "correct horse battery staple" });
    const login = await auth.login(
      {},
      { email: "ada@example.test", password: "correct horse battery staple" },
    );
    if (login.twoFactorRequired) throw new Error("unexpected 2FA");
    expect(await allowlist.findAllowedAccessToken(jtiOf(login.accessToken))).toEqual({
      userId: login.user.id,
      sessionId: login.sessionId,
    });
    expect((await auth.authenticate({ token: login.accessToken })).sessionId).toBe(login.sessionId);

    const refreshed = await auth.refresh({ token: login.refreshToken });
    expect((await auth.authenticate({ token: refreshed.accessToken })).sessionId).toBe(login.sessionId);
    await expect(auth.authenticate({ token: login.accessToken })).rejects.toMatchObject({
      code: "ACCESS_TOKEN_INVALID",
    });
    expect((await memory.sessions.getSession(login.sessionId))?.accessTokenJti).toBe(
      jtiOf(refreshed.accessToken),
    );

    await auth.requestPasswordReset({}, { email: "ada@example.test" });
    await auth.idle();
    const saved = await db.selectFrom("portcullis_tokens").select("purpose").execute();
    expect(saved.map((row) => row.purpose)).toContain("password-reset");

    await auth.logout({}, { accessToken: refreshed.accessToken });
    await expect(auth.authenticate({ token: refreshed.accessToken })).rejects.toMatchObject({
      code: "ACCESS_TOKEN_INVALID",
    });
    expect(await memory.sessions.getSession(login.sessionId)).toBeNull();
    expect(await allowlist.findAllowedAccessToken(jtiOf(refreshed.accessToken))).toBeNull();
    await expect(auth.refresh({ token: refreshed.refreshToken })).rejects.toMatchObject({
      code: "REFRESH_TOKEN_INVALID",
    });
    memory.close();
  });

  it("resetPassword - mixed stores without together: the link sets the password and ends the sessions from before", async () => {
    const { auth, memory, sent } = await mixedAuth();
    const email = "grace@example.test";
    await auth.register({}, { email, password: "correct horse battery staple" });
    const before = await auth.login({}, { email, password: "correct horse battery staple" });
    if (before.twoFactorRequired) throw new Error("unexpected 2FA");
    await auth.requestPasswordReset({}, { email });
    await auth.idle();
    const token = /token=([A-Za-z0-9_-]+)/.exec(sent.at(-1) ?? "")?.[1] ?? "";
    await auth.resetPassword({ token }, { newPassword: "a brand new passphrase" });
    await expect(auth.authenticate({ token: before.accessToken })).rejects.toMatchObject({
      code: "ACCESS_TOKEN_INVALID",
    });
    expect(await memory.sessions.listSessions(before.user.id)).toEqual([]);
    const after = await auth.login({}, { email, password: "a brand new passphrase" });
    expect(after.twoFactorRequired).toBeFalsy();
    memory.close();
  });
});

/** The `jti` an access token carries (read without checking: the test made it). */
const jtiOf = (accessToken: string): string =>
  JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()).jti;
