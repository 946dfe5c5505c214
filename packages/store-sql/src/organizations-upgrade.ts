import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlMigrator } from "./migrations.js";
import { storesAtMigration } from "./test-upgrade.js";

/**
 * Test support (not part of the package's exports), run on every dialect: a database at 0012
 * with a session is migrated to 0013; the session reads as before (no active organization), can
 * be given one, and organizations can be created and read; migrated back down to 0012, the
 * session stays and the organizations' tables are gone.
 */
export async function checkOrganizationsUpgrade(db: AnyKysely): Promise<void> {
  const { tablePrefix, stores, downgrade } = await storesAtMigration(db, "o", "0012_back_office");
  const session = {
    id: "s1",
    userId: "u1",
    browser: "Firefox 130",
    os: "Linux",
    ip: "203.0.113.7",
    createdAt: 1,
    lastActiveAt: 1,
    refreshTokenHash: "r1",
    accessTokenJti: "j1",
  };
  await stores.sessions.createSession(session, 60_000);
  const migrator = createSqlMigrator(db, { tablePrefix });
  expect((await migrator.migrateTo("0013_organizations")).results?.map((r) => r.migrationName)).toEqual([
    "0013_organizations",
  ]);
  expect(await stores.sessions.getSession("s1")).toEqual(session);
  expect(await stores.sessions.setActiveOrganization?.("s1", "o1")).toEqual({
    ...session,
    activeOrganizationId: "o1",
  });
  const organization = { id: "o1", name: "Acme", slug: "acme", createdAt: 1 };
  const owner = { organizationId: "o1", userId: "u1", role: "owner", joinedAt: 1 };
  expect(await stores.organizations.createOrganization(organization, owner)).toBe("created");
  expect(await stores.organizations.listMembershipsOfUser("u1")).toEqual([
    { organization, membership: owner },
  ]);
  expect(await stores.sessions.getSession("s1")).toEqual({ ...session, activeOrganizationId: "o1" });
  // And back down: the tables and the column go, the session stays.
  await downgrade();
  expect(await stores.sessions.getSession("s1")).toEqual(session);
  await expect(stores.organizations.findOrganization("o1")).rejects.toThrow();
}
