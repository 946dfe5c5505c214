import type { AnyKysely } from "../ledger.js";
import {
  type ImportSource,
  pageSizeOf,
  type SourceAccount,
  type SourceIdentity,
  type SourceRow,
} from "../source.js";

/** The names of Auth.js's two tables this source reads (a schema may prefix them: `auth.users`). */
export interface AuthjsTables {
  /** The users: `id`, `email`, `emailVerified`, `name`. */
  users: string;
  /** The provider links: `userId`, `type`, `provider`, `providerAccountId`. */
  accounts: string;
}

/** Options of `authjsSource`. */
export interface AuthjsSourceOptions {
  /** A Kysely instance on Auth.js's database (any dialect); the caller owns it and destroys it. */
  db: AnyKysely;
  /** Where the tables are; default: found by `findAuthjsTables`. */
  tables?: AuthjsTables;
  /** How this database is told apart from other sources in the import ledger; default `authjs`. */
  name?: string;
  /** Users read per query; default 1,000. */
  pageSize?: number;
}

/** The source cannot read Auth.js's tables (none found, or some columns missing): the run cannot start. */
export class AuthjsSourceError extends Error {}

/** The table namings of the official SQL adapters: @auth/pg-adapter's, then @auth/kysely-adapter's. */
export const AUTHJS_TABLE_NAMINGS: readonly AuthjsTables[] = Object.freeze([
  { users: "users", accounts: "accounts" },
  { users: "User", accounts: "Account" },
]);

const USER_COLUMNS = ["id", "email", "emailVerified", "name"];
const ACCOUNT_COLUMNS = ["userId", "type", "provider", "providerAccountId"];
/**
 * The account types that are provider links. Auth.js also writes `email` (a magic-link sign-in:
 * the provider account id is the address itself) and `webauthn` (a passkey: the credential's
 * public key is elsewhere) rows, which are no one's identity at a provider; the Credentials
 * provider writes none.
 */
const LINK_TYPES = ["oauth", "oidc"];

type Columns = Map<string, Set<string>>;

/** Each table's columns, by `name` and by `schema.name`. */
async function columnsOf(db: AnyKysely): Promise<Columns> {
  const columns: Columns = new Map();
  for (const table of await db.introspection.getTables()) {
    const names = new Set(table.columns.map((column) => column.name));
    if (table.schema) columns.set(`${table.schema}.${table.name}`, names);
    if (!columns.has(table.name) || table.schema === "public") columns.set(table.name, names);
  }
  return columns;
}

/** What is missing for `tables` to be Auth.js's tables, or null when nothing is. */
function missing(columns: Columns, tables: AuthjsTables): string | null {
  for (const [table, wanted] of [
    [tables.users, USER_COLUMNS],
    [tables.accounts, ACCOUNT_COLUMNS],
  ] as const) {
    const found = columns.get(table);
    if (!found) return `no table ${table}`;
    const absent = wanted.filter((column) => !found.has(column));
    if (absent.length > 0) return `table ${table} has no column ${absent.join(", ")}`;
  }
  return null;
}

/**
 * Finds Auth.js's tables in `db` by introspection: `users` and `accounts` (@auth/pg-adapter's
 * schema) or `User` and `Account` (@auth/kysely-adapter's), with the columns the import reads.
 * With `tables`, checks those instead. Throws `AuthjsSourceError`, saying what was looked for,
 * when there are none.
 */
export async function findAuthjsTables(db: AnyKysely, tables?: AuthjsTables): Promise<AuthjsTables> {
  const columns = await columnsOf(db);
  if (tables) {
    const problem = missing(columns, tables);
    if (problem) throw new AuthjsSourceError(`the Auth.js source cannot be read: ${problem}`);
    return tables;
  }
  const found = AUTHJS_TABLE_NAMINGS.find((naming) => missing(columns, naming) === null);
  if (found) return found;
  const looked = AUTHJS_TABLE_NAMINGS.map((naming) => `${naming.users}/${naming.accounts}`).join(" or ");
  throw new AuthjsSourceError(
    `no Auth.js tables in the source database: looked for ${looked} with the columns of Auth.js's SQL adapters (${AUTHJS_TABLE_NAMINGS.map((naming) => missing(columns, naming)).join("; ")}); name them with the tables option`,
  );
}

/** One user row as the database gives it (`id`: a number for SERIAL ids, a string for UUIDs). */
interface UserRow {
  id: string | number;
  email: string | null;
  emailVerified: unknown;
  name: string | null;
}

/**
 * Auth.js's users and their provider links as an import source (docs/import-authjs.md), read
 * through `db` in keyset pages of `pageSize` users (`WHERE id > last ORDER BY id`), each page's
 * links with one `IN (…)`, so any number of users streams in bounded memory. A user becomes
 * `{ id, email, emailVerified (a verification time → true), name }`, its `oauth`/`oidc` accounts
 * `{ provider, subject: providerAccountId }` identities (other types are not provider links: see
 * `LINK_TYPES`). A user without an address is a skipped `invalid_row`. Auth.js keeps no
 * passwords, so none comes. `rows()` rejects with `AuthjsSourceError` when the tables are absent.
 */
export function authjsSource(options: AuthjsSourceOptions): ImportSource {
  const pageSize = pageSizeOf(options.pageSize);
  return {
    name: options.name ?? "authjs",
    async *rows() {
      const tables = await findAuthjsTables(options.db, options.tables);
      let line = 0;
      let last: string | number | undefined;
      for (;;) {
        const users = await userPage(options.db, tables.users, last, pageSize);
        const identities = await identitiesOf(options.db, tables.accounts, users);
        for (const user of users) yield toRow(user, identities.get(String(user.id)) ?? [], ++line);
        if (users.length < pageSize) return;
        last = users[users.length - 1]?.id;
      }
    },
  };
}

/** The next `pageSize` users after `last` (from the first when absent), in id order. */
function userPage(db: AnyKysely, table: string, last: string | number | undefined, pageSize: number) {
  let query = db.selectFrom(table).select(["id", "email", "emailVerified", "name"]);
  if (last !== undefined) query = query.where("id", ">", last);
  return query.orderBy("id").limit(pageSize).execute() as Promise<UserRow[]>;
}

/** The provider links of `users`, by user id (as text), read with one query. */
async function identitiesOf(
  db: AnyKysely,
  table: string,
  users: UserRow[],
): Promise<Map<string, SourceIdentity[]>> {
  const links = new Map<string, SourceIdentity[]>();
  if (users.length === 0) return links;
  const rows = await db
    .selectFrom(table)
    .select(["userId", "provider", "providerAccountId"])
    .where(
      "userId",
      "in",
      users.map((user) => user.id),
    )
    .where("type", "in", LINK_TYPES)
    .orderBy("provider")
    .orderBy("providerAccountId")
    .execute();
  for (const row of rows as { userId: string | number; provider: string; providerAccountId: unknown }[]) {
    const list = links.get(String(row.userId)) ?? [];
    list.push({ provider: row.provider, subject: String(row.providerAccountId) });
    links.set(String(row.userId), list);
  }
  return links;
}

/** One user as a source row: its account, or why it cannot be one. */
function toRow(user: UserRow, identities: SourceIdentity[], line: number): SourceRow {
  if (typeof user.email !== "string" || user.email.trim() === "")
    return {
      line,
      skip: "invalid_row",
      detail: `Auth.js user ${user.id} has no email address (a Portcullis account needs one)`,
    };
  const account: SourceAccount = {
    id: String(user.id),
    email: user.email,
    emailVerified: user.emailVerified !== null && user.emailVerified !== undefined,
    name: user.name ?? null,
    identities,
  };
  return { line, account };
}
