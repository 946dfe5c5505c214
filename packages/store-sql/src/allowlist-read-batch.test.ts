import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createSqlStores } from "./sql-stores.js";
import { loggedPostgresForFile, plainUser } from "./test-logged-postgres.js";

// On PostgreSQL, the allowlist's reads of one turn go as one statement, each still as of after
// its call: a token revoked before a read is refused by it.
describe("allowlist reads batched on PostgreSQL", () => {
  const postgres = loggedPostgresForFile(10);
  const { statements } = postgres;

  it("20 concurrent joint reads of live, revoked, expired and unknown tokens: one statement, each its own answer; a revoke is seen by the next read", async () => {
    const clock = createFakeClock();
    const { users, allowlist, joint } = createSqlStores({ db: postgres.db, clock });
    const user = plainUser("batch@example.test", "Batch");
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
    const answers = await Promise.all(asked.map((jti) => joint.findAllowedAccessTokenWithUser?.(jti)));
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
      joint.findAllowedAccessTokenWithUser?.("live-3"),
      joint.findAllowedAccessTokenWithUser?.("live-4"),
    ]);
    expect(after).toBeNull();
  });
});
