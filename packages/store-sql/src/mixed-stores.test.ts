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
// Redis, single-use tokens in SQL (SQLite), users and cooldowns in memory.
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

describe("stores from three packages", () => {
  it("createAuth - memory sessions, a Redis allowlist and SQL single-use tokens: login, refresh, reset link, logout", async () => {
    const memory = createMemoryStores({ sweepIntervalMs: 0 });
    const sql = createSqlStores({ db });
    await sql.migrate();
    const { allowlist } = createRedisStores({ client, keyPrefix });
    const sent: string[] = [];
    const auth = createAuth({
      secret: "mixed-stores-secret-4mVqN9xYp2Lk7RwTz8HcJd3FbGs6QeUa",
      stores: { ...memory, allowlist, singleUseTokens: sql.singleUseTokens },
      logger: silentLogger,
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
      mailer: { send: async (message) => void sent.push(message.html) },
      appOrigin: "https://app.example.test",
      email: { enabled: true, loginAlerts: false },
    });
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
});

/** The `jti` an access token carries (read without checking: the test made it). */
const jtiOf = (accessToken: string): string =>
  JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()).jti;
