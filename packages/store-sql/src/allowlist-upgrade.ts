import { randomBytes } from "node:crypto";
import { createFakeClock } from "@portcullis/testing";
import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { createSqlMigrator, migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";

/**
 * Test support (not part of the package's exports), run on every dialect: a database at 0004
 * whose session rows hold their access tokens, as the stores wrote them before 0005, is migrated;
 * the live session's access token is then on the allowlist (so tokens issued before the upgrade
 * keep working) until the earlier of its two expiries, and the expired ones are not.
 */
export async function checkAllowlistUpgrade(db: AnyKysely): Promise<void> {
  const tablePrefix = `u${randomBytes(5).toString("hex")}_`;
  const clock = createFakeClock();
  const now = clock.now();
  await createSqlMigrator(db, { tablePrefix }).migrateTo("0004_token_claims");
  const row = (id: string, accessTokenExpiresAt: number, expiresAt: number) => ({
    id,
    user_id: "u1",
    browser: null,
    os: null,
    ip: null,
    created_at: now,
    last_active_at: now,
    refresh_token_hash: `refresh-${id}`,
    previous_refresh_token_hashes: "[]",
    access_token_jti: `jti-${id}`,
    access_token_expires_at: accessTokenExpiresAt,
    expires_at: expiresAt,
  });
  await db
    .insertInto(`${tablePrefix}sessions`)
    .values([
      row("live", now + 900_000, now + 3_600_000),
      row("ending", now + 900_000, now + 1_000),
      row("access-expired", now - 1, now + 3_600_000),
      row("session-expired", now + 900_000, now - 1),
    ])
    .execute();
  expect(await migrate(db, { tablePrefix })).toEqual(migrationsAfter("0004_token_claims"));
  const { allowlist, sessions } = createSqlStores({ db, clock, tablePrefix });
  expect(await allowlist.findAllowedAccessToken("jti-live")).toEqual({ userId: "u1", sessionId: "live" });
  expect(await allowlist.findAllowedAccessToken("jti-ending")).toEqual({ userId: "u1", sessionId: "ending" });
  expect(await allowlist.findAllowedAccessToken("jti-access-expired")).toBeNull();
  expect(await allowlist.findAllowedAccessToken("jti-session-expired")).toBeNull();
  expect((await sessions.getSession("live"))?.accessTokenJti).toBe("jti-live");
  clock.advance(1_000);
  expect(await allowlist.findAllowedAccessToken("jti-ending")).toBeNull();
  clock.advance(899_000);
  expect(await allowlist.findAllowedAccessToken("jti-live")).toBeNull();
}
