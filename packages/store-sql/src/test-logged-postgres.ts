import type { UserRecord } from "@portcullis/core";
import { sampleUserRecord } from "@portcullis/testing";
import type { LogEvent } from "kysely";
import { afterAll, beforeAll } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrate } from "./migrations.js";
import { plainPostgresDb, postgresDatabase, usePostgres } from "./test-databases.js";

/**
 * Test support (not part of the package's exports): a test file's own PostgreSQL database
 * (`postgresDatabase` on `usePostgres`), migrated, behind a plain pool of `max` connections
 * (`plainPostgresDb`) whose every statement is pushed to `statements`. Made before the file's
 * tests, dropped after them, the server stopped when one was started here.
 */
export function loggedPostgresForFile(max: number): {
  readonly db: AnyKysely;
  readonly statements: string[];
} {
  const statements: string[] = [];
  let server: Awaited<ReturnType<typeof usePostgres>> | undefined;
  let database: Awaited<ReturnType<typeof postgresDatabase>> | undefined;
  let db: AnyKysely | undefined;
  beforeAll(async () => {
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    db = plainPostgresDb(database.url, max, (event: LogEvent) => {
      if (event.level === "query") statements.push(event.query.sql);
    });
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    await server?.stop();
  });
  return {
    get db() {
      if (!db) throw new Error("loggedPostgresForFile: the database is made in beforeAll");
      return db;
    },
    statements,
  };
}

/** A verified user `u1` with `email` and `name`, no password and no second factor. */
export const plainUser = (email: string, name: string): UserRecord =>
  sampleUserRecord({ email, emailVerified: true, name });
