import type {
  MembershipRecord,
  OrganizationPage,
  OrganizationRecord,
  OrganizationStore,
} from "@portcullis/core";
import { sql } from "kysely";
import { type AnyKysely, insertUnlessTaken, isDuplicateKey, type SqlContext } from "./context.js";
import { invitationMethods, roleMethods } from "./organization-invitations.js";
import { membershipMethods } from "./organization-members.js";
import {
  fromOrganizationRow,
  membershipRow,
  type OrganizationRow,
  type OrganizationTransactions,
  organizationRow,
  organizationTransactions,
  startsWithPattern,
} from "./organization-rows.js";

/**
 * Organizations, their members, custom roles and invitations in `<prefix>organizations`,
 * `<prefix>memberships`, `<prefix>organization_roles` and `<prefix>invitations` (migration
 * `0013_organizations`). The unique slug makes creation atomic; every change whose outcome
 * depends on other rows of an organization (its owners, a role in use, an invitation's
 * acceptance or replacement, its deletion) is a transaction that first locks the organization's
 * row, so such changes of one organization run one after the other; `maxPerUser` locks the user
 * (`organizationTransactions`). Deleting an organization (also with its last member's account,
 * `removeUser`) deletes its API keys (`<prefix>api_keys`, migration `0014_api_keys`) too.
 */
export function createSqlOrganizationStore(context: SqlContext): OrganizationStore {
  return {
    ...organizationMethods(context),
    ...membershipMethods(context),
    ...roleMethods(context),
    ...invitationMethods(context),
  };
}

/** Creating an organization with its owner. */
function creation({ dialect, tables }: SqlContext, transactions: OrganizationTransactions) {
  return async (
    organization: OrganizationRecord,
    owner: MembershipRecord,
    options?: { maxPerUser?: number },
  ): Promise<"created" | "slug-taken" | "limit-reached"> => {
    const maxPerUser = options?.maxPerUser;
    const create = async (trx: AnyKysely) => {
      if (maxPerUser !== undefined) {
        const { n } = await trx
          .selectFrom(tables.memberships)
          .select((eb) => eb.fn.countAll().as("n"))
          .where("user_id", "=", owner.userId)
          .executeTakeFirstOrThrow();
        if (Number(n) >= maxPerUser) return "limit-reached" as const;
      }
      const row = organizationRow(organization);
      if (!(await insertUnlessTaken({ db: trx, dialect }, tables.organizations, row))) return "slug-taken";
      await trx.insertInto(tables.memberships).values(membershipRow(owner)).execute();
      return "created" as const;
    };
    return maxPerUser === undefined ? transactions.run(create) : transactions.runAsUser(owner.userId, create);
  };
}

/** Creating, reading (by id or by the unique slug), renaming, deleting and listing organizations. */
function organizationMethods(
  context: SqlContext,
): Pick<
  OrganizationStore,
  | "createOrganization"
  | "findOrganization"
  | "findOrganizationBySlug"
  | "updateOrganization"
  | "deleteOrganization"
  | "listOrganizations"
> {
  const { db, dialect, tables } = context;
  const transactions = organizationTransactions(context);
  const find = async (id: string) => {
    const row = await db.selectFrom(tables.organizations).selectAll().where("id", "=", id).executeTakeFirst();
    return row ? fromOrganizationRow(row as OrganizationRow) : null;
  };
  return {
    createOrganization: creation(context, transactions),

    findOrganization: find,

    async findOrganizationBySlug(slug) {
      const row = (await db
        .selectFrom(tables.organizations)
        .selectAll()
        .where("slug", "=", slug)
        .executeTakeFirst()) as OrganizationRow | undefined;
      // MySQL's collations ignore trailing spaces in `=`: the slug read is compared again, exactly.
      return row !== undefined && row.slug === slug ? fromOrganizationRow(row) : null;
    },

    async updateOrganization(id, patch) {
      const set = {
        ...(patch.name !== undefined ? { name: patch.name, search_name: patch.name.toLowerCase() } : {}),
        ...(patch.slug !== undefined ? { slug: patch.slug } : {}),
      };
      if (Object.keys(set).length > 0) {
        try {
          await db.updateTable(tables.organizations).set(set).where("id", "=", id).execute();
        } catch (error) {
          if (isDuplicateKey(error)) return "slug-taken";
          throw error;
        }
      }
      return find(id);
    },

    deleteOrganization: (id) =>
      transactions.run(async (trx) => {
        if (dialect !== "sqlite" && (await transactions.lock(trx, [id])).length === 0) return false;
        for (const table of [
          tables.memberships,
          tables.organizationRoles,
          tables.invitations,
          tables.apiKeys,
        ]) {
          await trx.deleteFrom(table).where("organization_id", "=", id).execute();
        }
        const { numDeletedRows } = await trx
          .deleteFrom(tables.organizations)
          .where("id", "=", id)
          .executeTakeFirst();
        return Number(numDeletedRows) > 0;
      }),

    listOrganizations: (query) => listOrganizations(context, query),
  };
}

/** `listOrganizations`: a prefix of the slug or the lower-cased name, in order of id after the cursor. */
async function listOrganizations(
  { db, tables }: SqlContext,
  { query, cursor, limit }: Parameters<OrganizationStore["listOrganizations"]>[0],
): Promise<OrganizationPage<OrganizationRecord>> {
  let select = db
    .selectFrom(tables.organizations)
    .selectAll()
    .orderBy("id")
    .limit(limit + 1);
  if (cursor !== undefined) select = select.where("id", ">", cursor);
  if (query !== "") {
    const pattern = startsWithPattern(query.toLowerCase());
    select = select.where(
      sql<boolean>`(${sql.ref("slug")} like ${pattern} escape '!' or ${sql.ref("search_name")} like ${pattern} escape '!')`,
    );
  }
  const rows = (await select.execute()) as OrganizationRow[];
  const items = rows.slice(0, limit).map(fromOrganizationRow);
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}
