import type { SqlDialect } from "./context.js";
import type { HotCalls, PlannedStores, Series } from "./query-plans-support.js";

/**
 * Test support for query-plans.test.ts (not part of the package's exports): the SCIM tables filled
 * and the SCIM store's calls, in that file's terms.
 */

/** How many connections the rows are spread over: `rows / CONNECTIONS` users and groups each. */
const CONNECTIONS = 50;

/**
 * `rows` SCIM users (`su<n>` of connection `sc<n % 50>`, account `u<n>`, named `User<n>@Example.com`,
 * externalId `ext<n>`), `rows` groups (`sg<n>`, named `Group <n>`, externalId `gext<n>`) and, for
 * each group, its one member (`sg<n>` has `su<n>`).
 */
export function scimFillStatements(series: Series, dialect: SqlDialect, rows: number, now: number): string[] {
  const yes = dialect === "postgres" ? "true" : "1";
  const connection = `'sc' || (n % ${CONNECTIONS})`;
  return [
    series(
      rows,
      `'su' || n, ${connection}, 'u' || n, 'User' || n || '@Example.com', 'user' || n || '@example.com', 'ext' || n, 'ext' || n, ${yes}, '{}', 1, ${now}, ${now}`,
      "portcullis_scim_users",
      "id, connection_id, user_id, user_name, user_name_key, external_id, external_id_key, active, attributes, version, created_at, updated_at",
    ),
    series(
      rows,
      `'sg' || n, ${connection}, 'Group ' || n, 'group ' || n, 'gext' || n, 'gext' || n, 'member', 1, ${now}, ${now}`,
      "portcullis_scim_groups",
      "id, connection_id, display_name, display_name_key, external_id, external_id_key, role, version, created_at, updated_at",
    ),
    series(
      rows,
      `${connection}, 'sg' || n, 'su' || n`,
      "portcullis_scim_group_members",
      "connection_id, group_id, user_scim_id",
    ),
  ];
}

/** The SCIM store's calls: the reads of every SCIM request, and the changes. */
export function scimCalls(stores: PlannedStores, now: number): HotCalls {
  const scim = stores.scim;
  const user = {
    connectionId: "sc3",
    id: "su-new",
    userId: "u-new",
    userName: "New@Example.com",
    externalId: "ext-new",
    active: true,
    suspendedRole: null,
    attributes: {},
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const group = {
    connectionId: "sc3",
    id: "sg-new",
    displayName: "New group",
    externalId: null,
    role: null,
    memberIds: ["su3", "su53"],
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  return [
    ["scim.findScimUser", () => scim.findScimUser("sc5", "su5")],
    ["scim.findScimUserByUserName", () => scim.findScimUserByUserName("sc5", "USER5@example.com")],
    ["scim.findScimUserByExternalId", () => scim.findScimUserByExternalId("sc5", "ext5")],
    ["scim.findScimUserByUserId", () => scim.findScimUserByUserId("sc5", "u5")],
    ["scim.listScimUsers", () => scim.listScimUsers("sc5", { after: "su105", limit: 100 })],
    ["scim.countScimUsers", () => scim.countScimUsers("sc5")],
    ["scim.createScimUser", () => scim.createScimUser(user)],
    ["scim.createScimUser (name taken)", () => scim.createScimUser({ ...user, id: "su-x", userId: "u-x" })],
    [
      "scim.updateScimUser",
      () => scim.updateScimUser("sc7", "su7", 1, { userName: "Renamed@Example.com", updatedAt: now }),
    ],
    ["scim.findScimGroup", () => scim.findScimGroup("sc5", "sg5")],
    ["scim.findScimGroupByDisplayName", () => scim.findScimGroupByDisplayName("sc5", "GROUP 5")],
    ["scim.findScimGroupByExternalId", () => scim.findScimGroupByExternalId("sc5", "gext5")],
    ["scim.listScimGroups", () => scim.listScimGroups("sc5", { limit: 100 })],
    ["scim.countScimGroups", () => scim.countScimGroups("sc5")],
    ["scim.listScimGroupsOfUsers", () => scim.listScimGroupsOfUsers("sc5", ["su5", "su6"])],
    ["scim.createScimGroup", () => scim.createScimGroup(group)],
    [
      "scim.updateScimGroup",
      () => scim.updateScimGroup("sc9", "sg9", 1, { memberIds: ["su59", "su109"], updatedAt: now }),
    ],
    ["scim.deleteScimUser", () => scim.deleteScimUser("sc11", "su11")],
    ["scim.deleteScimGroup", () => scim.deleteScimGroup("sc13", "sg13")],
    ["scim.removeConnectionScim", () => scim.removeConnectionScim("sc17")],
  ];
}
