import type { SsoDomainRecord, SsoStore } from "@portcullis/core";
import {
  type AnyKysely,
  insertUnlessTaken,
  inTransaction,
  isDuplicateKey,
  type SqlContext,
  storedKey,
} from "./context.js";
import {
  type ConnectionRow,
  connectionOf,
  connectionPatchColumns,
  connectionRow,
  type DomainRow,
  domainOf,
  domainRow,
} from "./sso-rows.js";

/** Thrown inside a transaction to roll it back when a domain belongs to another connection. */
const DOMAIN_TAKEN = Symbol("domain-taken");

/** A route's row: the connection's columns, and its verified domain's under `route_*`. */
type RouteRow = ConnectionRow & {
  route_domain: string;
  route_token: string;
  route_verified_at: number | string;
  route_created_at: number | string;
};

/**
 * Enterprise sign-in's state in the four tables of `0019_sso` (`<prefix>sso_connections`,
 * `sso_connection_domains`, `sso_domains`, `sso_assertions`). A domain's one connection and its one
 * verifying organization are the databases' unique keys (`sso_connection_domains.domain`,
 * `sso_domains.verified_domain`), so concurrent calls cannot both win: a connection's row and its
 * domains' rows change in one transaction that a taken domain rolls back. `findSsoRoute` is one
 * join, `findSsoConnectionByScimTokenHash` one indexed read.
 */
export function createSqlSsoStore(context: SqlContext): SsoStore {
  const { db, tables } = context;
  const connections = tables.ssoConnections;
  return {
    ...sqlSsoConnectionWrites(context),
    async findSsoConnection(id) {
      const row = await db.selectFrom(connections).selectAll().where("id", "=", id).executeTakeFirst();
      return row ? connectionOf(row as ConnectionRow) : null;
    },

    async listSsoConnections(organizationId) {
      const rows = await db
        .selectFrom(connections)
        .selectAll()
        .where("organization_id", "=", organizationId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => connectionOf(row as ConnectionRow));
    },

    async findSsoConnectionByScimTokenHash(tokenHash) {
      const row = await db
        .selectFrom(connections)
        .selectAll()
        .where("scim_token_hash", "=", tokenHash)
        .limit(1)
        .executeTakeFirst();
      return row ? connectionOf(row as ConnectionRow) : null;
    },

    findSsoRoute: (domain) => findRoute(context, domain),
    ...sqlSsoDomains(context),
    useSsoAssertion: (connectionId, assertionId, expiresAt) =>
      insertUnlessTaken(context, tables.ssoAssertions, {
        connection_id: connectionId,
        assertion_id: storedKey(assertionId),
        expires_at: expiresAt,
      }),
  };
}

/** The connections' writes of `createSqlSsoStore`: each in one transaction with its domains' rows. */
function sqlSsoConnectionWrites(
  context: SqlContext,
): Pick<
  SsoStore,
  "createSsoConnection" | "updateSsoConnection" | "deleteSsoConnection" | "removeOrganizationSso"
> {
  const { db, tables } = context;
  const connections = tables.ssoConnections;
  const domains = tables.ssoDomains;
  const connectionWhere = (executor: AnyKysely, id: string) =>
    executor.selectFrom(connections).selectAll().where("id", "=", id);
  const rollingBackTaken = async <T>(work: (trx: AnyKysely) => Promise<T>): Promise<T | "domain-taken"> => {
    try {
      return await inTransaction(db, work);
    } catch (error) {
      if (error === DOMAIN_TAKEN) return "domain-taken";
      throw error;
    }
  };
  return {
    async createSsoConnection(connection) {
      return rollingBackTaken(async (trx) => {
        await addDomains(context, trx, connection.id, connection.domains);
        await trx.insertInto(connections).values(connectionRow(connection)).execute();
        return "created" as const;
      });
    },

    async updateSsoConnection(organizationId, id, patch) {
      return rollingBackTaken(async (trx) => {
        // The UPDATE first: it locks the connection's row, so changes of one connection run one by one.
        const { numUpdatedRows } = await trx
          .updateTable(connections)
          .set(connectionPatchColumns(patch))
          .where("id", "=", id)
          .where("organization_id", "=", organizationId)
          .executeTakeFirst();
        if (Number(numUpdatedRows) === 0) return null;
        if (patch.domains !== undefined) await replaceDomains(context, trx, id, patch.domains);
        const row = await connectionWhere(trx, id).executeTakeFirst();
        return row ? connectionOf(row as ConnectionRow) : null;
      });
    },

    deleteSsoConnection: (organizationId, id) =>
      inTransaction(db, async (trx) => {
        const { numDeletedRows } = await trx
          .deleteFrom(connections)
          .where("id", "=", id)
          .where("organization_id", "=", organizationId)
          .executeTakeFirst();
        if (Number(numDeletedRows) === 0) return false;
        for (const owned of [tables.ssoConnectionDomains, tables.ssoAssertions]) {
          await trx.deleteFrom(owned).where("connection_id", "=", id).execute();
        }
        return true;
      }),

    removeOrganizationSso: (organizationId) =>
      inTransaction(db, async (trx) => {
        const ofOrganization = trx
          .selectFrom(connections)
          .select("id")
          .where("organization_id", "=", organizationId);
        for (const owned of [tables.ssoAssertions, tables.ssoConnectionDomains]) {
          await trx.deleteFrom(owned).where("connection_id", "in", ofOrganization).execute();
        }
        for (const table of [connections, domains]) {
          await trx.deleteFrom(table).where("organization_id", "=", organizationId).execute();
        }
      }),
  };
}

/** The claimed and verified domains' methods of `createSqlSsoStore`. */
function sqlSsoDomains(
  context: SqlContext,
): Pick<
  SsoStore,
  "claimSsoDomain" | "listSsoDomains" | "findSsoDomain" | "verifySsoDomain" | "releaseSsoDomain"
> {
  const { db, tables } = context;
  const domains = tables.ssoDomains;
  const findDomain = async (organizationId: string, domain: string) => {
    const row = await db
      .selectFrom(domains)
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("domain", "=", domain)
      .executeTakeFirst();
    return row ? domainOf(row as DomainRow) : null;
  };
  return {
    async claimSsoDomain(record) {
      return claimDomain(context, record, findDomain);
    },

    async listSsoDomains(organizationId) {
      const rows = await db
        .selectFrom(domains)
        .selectAll()
        .where("organization_id", "=", organizationId)
        .orderBy("domain")
        .execute();
      return rows.map((row) => domainOf(row as DomainRow));
    },

    findSsoDomain: findDomain,

    async verifySsoDomain(organizationId, domain, at) {
      try {
        // Kept when verified already; `verified_domain`'s unique key refuses a second organization.
        const { numUpdatedRows } = await db
          .updateTable(domains)
          .set((eb) => ({
            verified_at: eb.fn.coalesce("verified_at", eb.val(at)),
            verified_domain: domain,
          }))
          .where("organization_id", "=", organizationId)
          .where("domain", "=", domain)
          .executeTakeFirst();
        if (Number(numUpdatedRows) === 0) return "not-found";
      } catch (error) {
        if (isDuplicateKey(error)) return "taken";
        throw error;
      }
      return (await findDomain(organizationId, domain)) ?? "not-found";
    },

    async releaseSsoDomain(organizationId, domain) {
      const { numDeletedRows } = await db
        .deleteFrom(domains)
        .where("organization_id", "=", organizationId)
        .where("domain", "=", domain)
        .executeTakeFirst();
      return Number(numDeletedRows) > 0;
    },
  };
}

/**
 * Inserts a row of `<prefix>sso_connection_domains` for each of `names` (once each, in order of
 * name, so concurrent inserts take the keys' locks in one order), or throws `DOMAIN_TAKEN` when
 * one belongs to a connection already, a concurrent one too: `on conflict do nothing` inserts
 * fewer rows (PostgreSQL waits for the other transaction first), MySQL answers a duplicate key.
 */
async function addDomains(
  { dialect, tables }: SqlContext,
  trx: AnyKysely,
  connectionId: string,
  names: string[],
) {
  const unique = [...new Set(names)].sort();
  if (unique.length === 0) return;
  const rows = unique.map((domain) => ({ domain, connection_id: connectionId }));
  const insert = trx.insertInto(tables.ssoConnectionDomains).values(rows);
  if (dialect === "mysql") {
    try {
      await insert.execute();
      return;
    } catch (error) {
      if (isDuplicateKey(error)) throw DOMAIN_TAKEN;
      throw error;
    }
  }
  const result = await insert
    .onConflict((conflict) => conflict.column("domain").doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) !== unique.length) throw DOMAIN_TAKEN;
}

/** Makes the connection's rows of `<prefix>sso_connection_domains` those of `names`: deletes the dropped, adds the new. */
async function replaceDomains(context: SqlContext, trx: AnyKysely, connectionId: string, names: string[]) {
  const table = context.tables.ssoConnectionDomains;
  const current = (
    await trx.selectFrom(table).select("domain").where("connection_id", "=", connectionId).execute()
  ).map((row) => row.domain as string);
  const dropped = current.filter((domain) => !names.includes(domain));
  if (dropped.length > 0) {
    await trx
      .deleteFrom(table)
      .where("connection_id", "=", connectionId)
      .where("domain", "in", dropped)
      .execute();
  }
  await addDomains(
    context,
    trx,
    connectionId,
    names.filter((domain) => !current.includes(domain)),
  );
}

/**
 * `findSsoRoute`'s one statement: the domain's row of `<prefix>sso_connection_domains` (its key),
 * joined with its connection (the key) and with the connection's organization's claim of the
 * domain (the key), verified.
 */
async function findRoute({ db, tables }: SqlContext, domain: string) {
  // Full table names, no aliases: SQLite's plans name the table (query-plans.test.ts looks for it).
  const [cd, c, d] = [tables.ssoConnectionDomains, tables.ssoConnections, tables.ssoDomains];
  const row = (await db
    .selectFrom(cd)
    .innerJoin(c, `${c}.id`, `${cd}.connection_id`)
    .innerJoin(d, (join) =>
      join
        .onRef(`${d}.organization_id`, "=", `${c}.organization_id`)
        .onRef(`${d}.domain`, "=", `${cd}.domain`),
    )
    .selectAll(c)
    .select([
      `${d}.domain as route_domain`,
      `${d}.verification_token as route_token`,
      `${d}.verified_at as route_verified_at`,
      `${d}.created_at as route_created_at`,
    ])
    .where(`${cd}.domain`, "=", domain)
    .where(`${d}.verified_at`, "is not", null)
    .executeTakeFirst()) as RouteRow | undefined;
  if (!row) return null;
  const connection = connectionOf(row);
  return {
    connection,
    domain: domainOf({
      organization_id: connection.organizationId,
      domain: row.route_domain,
      verification_token: row.route_token,
      verified_at: row.route_verified_at,
      verified_domain: row.route_domain,
      created_at: row.route_created_at,
    }),
  };
}

/**
 * `claimSsoDomain`: one insert, nothing when the organization's claim exists (its key). A claim
 * given as verified while another organization has the domain verified (`verified_domain`'s
 * unique key) is stored unverified: a domain is verified for one organization at most.
 */
async function claimDomain(
  { db, dialect, tables }: SqlContext,
  record: SsoDomainRecord,
  find: (organizationId: string, domain: string) => Promise<SsoDomainRecord | null>,
): Promise<"created" | "exists"> {
  const insert = async (row: DomainRow) => {
    const statement = db.insertInto(tables.ssoDomains).values(row);
    if (dialect === "mysql")
      return Number((await statement.executeTakeFirst()).numInsertedOrUpdatedRows ?? 0);
    const result = await statement
      .onConflict((conflict) => conflict.columns(["organization_id", "domain"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  };
  const row = domainRow(record);
  try {
    return (await insert(row)) > 0 ? "created" : "exists";
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  // Only the claim's key can be taken (on MySQL, it was: the claim may have gone since).
  if (row.verified_domain === null || (await find(record.organizationId, record.domain))) return "exists";
  try {
    return (await insert({ ...row, verified_at: null, verified_domain: null })) > 0 ? "created" : "exists";
  } catch (error) {
    if (isDuplicateKey(error)) return "exists";
    throw error;
  }
}
