import { createFakeClock } from "@portcullis/testing";
import { Kysely, type LogEvent, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { createReadBatch } from "./read-batch.js";
import { createSqlStores } from "./sql-stores.js";
import { postgresDatabase, usePostgres } from "./test-databases.js";

describe("createReadBatch", () => {
  const recording = () => {
    const batches: string[][] = [];
    const read = createReadBatch<string, string>(async (keys) => {
      batches.push(keys);
      return new Map(keys.filter((key) => !key.startsWith("missing")).map((key) => [key, `value of ${key}`]));
    }, 3);
    return { batches, read };
  };

  it("reads of one turn share a statement (at most maxKeys keys each), a repeated key is read once, a later turn reads anew", async () => {
    const { batches, read } = recording();
    const answers = await Promise.all(["a", "b", "a", "missing", "c", "d"].map(read));
    expect(answers).toEqual([
      "value of a",
      "value of b",
      "value of a",
      undefined,
      "value of c",
      "value of d",
    ]);
    expect(batches).toEqual([
      ["a", "b", "missing"],
      ["c", "d"],
    ]);
    expect(await read("a")).toBe("value of a");
    expect(batches).toHaveLength(3);
  });

  it("a failing read rejects every call it carried, and only those", async () => {
    let fail = true;
    const read = createReadBatch<string, number>(async (keys) => {
      if (fail) throw new Error("connection refused");
      return new Map(keys.map((key) => [key, key.length]));
    });
    const outcomes = await Promise.allSettled([read("a"), read("bb"), read("a")]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    fail = false;
    expect(await Promise.all([read("a"), read("bb")])).toEqual([1, 2]);
  });
});

// On PostgreSQL, the allowlist's reads of one turn go as one statement, each still as of after
// its call: a token revoked before a read is refused by it.
describe("allowlist reads batched on PostgreSQL", () => {
  let server: Awaited<ReturnType<typeof usePostgres>>;
  let database: Awaited<ReturnType<typeof postgresDatabase>>;
  let db: AnyKysely;
  const statements: string[] = [];
  beforeAll(async () => {
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    db = new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 10 }) }),
      log: (event: LogEvent) => {
        if (event.level === "query") statements.push(event.query.sql);
      },
    }) as AnyKysely;
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    await server?.stop();
  });

  it("20 concurrent joint reads of live, revoked, expired and unknown tokens: one statement, each its own answer; a revoke is seen by the next read", async () => {
    const clock = createFakeClock();
    const { users, allowlist } = createSqlStores({ db, clock });
    const user = {
      id: "u1",
      email: "batch@example.test",
      emailVerified: true,
      name: "Batch",
      passwordHash: null,
      identityProviders: [],
      twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
      createdAt: 1,
    };
    await users.create(user);
    for (let i = 0; i < 10; i++)
      await allowlist.allowAccessToken(`live-${i}`, { userId: "u1", sessionId: `s${i}` }, 60_000);
    await allowlist.allowAccessToken("short", { userId: "u1", sessionId: "s-short" }, 1_000);
    await allowlist.allowAccessToken("revoked", { userId: "u1", sessionId: "s-revoked" }, 60_000);
    await allowlist.revokeAccessTokens(["revoked"]);
    clock.advance(2_000);

    const jtis = [...Array.from({ length: 10 }, (_, i) => `live-${i}`), "short", "revoked", "unknown"];
    const asked = [...jtis, ...jtis.slice(0, 7)];
    statements.length = 0;
    const answers = await Promise.all(
      asked.map((jti) => allowlist.findAllowedAccessTokenWithUser?.(jti, users)),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/= any\(\$1\)/);
    asked.forEach((jti, i) => {
      const answer = answers[i];
      if (jti.startsWith("live-")) {
        expect(answer?.entry).toEqual({ userId: "u1", sessionId: `s${jti.slice(5)}` });
        expect(answer?.user).toEqual(user);
      } else expect(answer, jti).toBeNull();
    });
    const plain = await Promise.all(
      ["live-1", "unknown", "live-2"].map((jti) => allowlist.findAllowedAccessToken(jti)),
    );
    expect(plain).toEqual([{ userId: "u1", sessionId: "s1" }, null, { userId: "u1", sessionId: "s2" }]);

    await allowlist.revokeAccessTokens(["live-3"]);
    const [after] = await Promise.all([
      allowlist.findAllowedAccessTokenWithUser?.("live-3", users),
      allowlist.findAllowedAccessTokenWithUser?.("live-4", users),
    ]);
    expect(after).toBeNull();
  });
});
