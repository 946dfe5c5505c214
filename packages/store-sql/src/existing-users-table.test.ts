import {
  createFakeClock,
  runApiKeyStoreSuite,
  runOrganizationStoreSuite,
  runUserStoreSuite,
} from "@portcullis/testing";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll } from "vitest";
import { createMembersUserStore, type HostDatabase } from "../examples/existing-users-table.js";
import { migrate } from "./migrations.js";
import { createSqlStores } from "./sql-stores.js";
import { sqliteDb } from "./test-databases.js";

// The custom UserStore of docs/existing-users-table.md, on the host table the doc shows.
let db: Kysely<HostDatabase>;
beforeAll(async () => {
  db = sqliteDb() as Kysely<HostDatabase>;
  // The host's table as it was...
  await sql`create table members (
    member_id integer primary key autoincrement,
    email_address varchar(320) not null unique,
    full_name text,
    email_confirmed integer not null default 0,
    password_digest text,
    joined_at_ms bigint not null
  )`.execute(db);
  // ...and the migration that adds what Portcullis needs.
  await sql`alter table members add column auth_id varchar(255)`.execute(db);
  await sql`alter table members add column auth_identity_providers text not null default '[]'`.execute(db);
  await sql`alter table members add column auth_two_factor text not null default '{}'`.execute(db);
  await sql`alter table members add column auth_last_sign_in_at bigint`.execute(db);
  await sql`alter table members add column auth_admin text not null default '{}'`.execute(db);
  await sql`create unique index members_auth_id_key on members (auth_id)`.execute(db);
  // The package's other tables (organizations too) beside it.
  await migrate(db);
});
afterAll(async () => {
  await db.destroy();
});

runUserStoreSuite({ name: "existing members table", create: () => ({ store: createMembersUserStore(db) }) });
// Organizations refer to users by id only: they work the same beside the host's own table.
runOrganizationStoreSuite({
  name: "beside an existing members table",
  create: () => {
    const clock = createFakeClock();
    return { store: createSqlStores({ db, clock }).organizations, advance: clock.advance, now: clock.now };
  },
});
// API keys name their user by id too: the same beside the host's own table.
runApiKeyStoreSuite({
  name: "beside an existing members table",
  create: () => {
    const clock = createFakeClock();
    return { store: createSqlStores({ db, clock }).apiKeys, advance: clock.advance, now: clock.now };
  },
});
