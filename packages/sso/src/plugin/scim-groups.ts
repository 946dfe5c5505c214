import { randomUUID } from "node:crypto";
import type { HttpResponse, ScimGroupRecord } from "@portcullis/core";
import { replaceScimGroup, type ScimGroupChanges, type ScimWrite } from "../scim/changes.js";
import { compileScimGroupFilter } from "../scim/filter.js";
import { projectScimJson, readScimPage, scimListPage, scimListResponse } from "../scim/paging.js";
import { applyScimPatch } from "../scim/patch.js";
import { readScimGroup } from "../scim/read-resources.js";
import { type ScimGroup, scimLocation, toScimGroupJson } from "../scim/resources.js";
import { stored } from "./context.js";
import { groupOf, syncGroupMembers } from "./scim-directory.js";
import { refuse, refuseStatus, type ScimCall, scimAnswer, unwrap, withRetries } from "./scim-http.js";
import { everyRecord, pageOfRecords, queryOf } from "./scim-lists.js";

// The connection's groups (docs/sso.md, "SCIM"): a group named after a role of the organization
// (compared without case) gives its active members that role.

/** The group's SCIM JSON with the attributes the query asks for. */
function groupJson(call: ScimCall, group: ScimGroup) {
  return projectScimJson(toScimGroupJson(group, { baseUrl: call.baseUrl }), queryOf(call.input));
}

/** The connection's group of the path's id; 404 in SCIM's shape when it has none. */
async function pathGroup(call: ScimCall): Promise<ScimGroupRecord> {
  const id = call.input.params.id ?? "";
  const record = await stored(() => call.scim.findScimGroup(call.connectionId, id));
  return record ?? refuseStatus(404, `The directory has no group ${id}.`);
}

/** `invalidValue` unless every member is a user of the connection. */
async function assertMembers(call: ScimCall, memberIds: readonly string[]): Promise<void> {
  for (const id of new Set(memberIds)) {
    const user = await stored(() => call.scim.findScimUser(call.connectionId, id));
    if (user === null) refuse("invalidValue", `The directory has no user ${id} to make a member.`);
  }
}

/** `GET /Groups`: a page of the connection's groups, those a `filter` matches when it has one. */
export async function listGroups(call: ScimCall): Promise<HttpResponse> {
  const query = queryOf(call.input);
  const page = unwrap(readScimPage(query));
  const { scim, connectionId } = call;
  if (query.filter === undefined) {
    const total = await stored(() => scim.countScimGroups(connectionId));
    const records = await pageOfRecords((chunk) => scim.listScimGroups(connectionId, chunk), page);
    const resources = records.map((record) => groupJson(call, groupOf(record)));
    return scimAnswer(200, scimListResponse(resources, total, page.startIndex));
  }
  const filter = unwrap(compileScimGroupFilter(query.filter));
  const { lookup } = filter;
  const candidates =
    lookup === null
      ? await everyRecord((chunk) => scim.listScimGroups(connectionId, chunk))
      : [
          await stored(() =>
            lookup.attribute === "id"
              ? scim.findScimGroup(connectionId, lookup.value)
              : lookup.attribute === "displayName"
                ? scim.findScimGroupByDisplayName(connectionId, lookup.value)
                : scim.findScimGroupByExternalId(connectionId, lookup.value),
          ),
        ].filter((record) => record !== null);
  const matched = candidates.map(groupOf).filter((group) => filter.matches(group));
  const listed = scimListPage(matched, page);
  return scimAnswer(200, { ...listed, Resources: listed.Resources.map((group) => groupJson(call, group)) });
}

/** `GET /Groups/:id`. */
export async function getGroup(call: ScimCall): Promise<HttpResponse> {
  return scimAnswer(200, groupJson(call, groupOf(await pathGroup(call))));
}

/** `POST /Groups`: the group stored, its active members given the role it names. */
export async function createGroup(call: ScimCall): Promise<HttpResponse> {
  const attributes = unwrap(readScimGroup(await call.input.body<unknown>()));
  await assertMembers(call, attributes.members);
  const now = call.ctx.now();
  const record: ScimGroupRecord = {
    connectionId: call.connectionId,
    id: randomUUID(),
    displayName: attributes.displayName,
    externalId: attributes.externalId,
    role: attributes.displayName,
    memberIds: [...new Set(attributes.members)].sort(),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  if ((await stored(() => call.scim.createScimGroup(record))) === "display-name-taken")
    refuse("uniqueness", `The directory has a group named ${attributes.displayName} already.`);
  await syncGroupMembers(call, record.memberIds);
  const location = scimLocation(call.baseUrl, "Group", record.id);
  return scimAnswer(201, groupJson(call, groupOf(record)), { location });
}

/**
 * A write of the path's group (`PUT` or `PATCH`), retried on a concurrent change; then the roles
 * of the members it gained and lost (all of them when it was renamed) follow their groups.
 */
async function writeGroup(
  call: ScimCall,
  change: (group: ScimGroup) => ScimWrite<ScimGroup, ScimGroupChanges>,
): Promise<HttpResponse> {
  const { scim, connectionId } = call;
  // The members whose role may change, and the name they lost (the group's former name).
  let touched: { joined: string[]; left: string[]; name: string } = { joined: [], left: [], name: "" };
  const record = await withRetries(async () => {
    const current = await pathGroup(call);
    const { resource: next, changes } = change(groupOf(current));
    if (changes.fields.length === 0) return current;
    await assertMembers(call, changes.membersAdded);
    const updated = await stored(() =>
      scim.updateScimGroup(connectionId, current.id, current.version, {
        displayName: next.displayName,
        externalId: next.externalId,
        role: next.displayName,
        memberIds: [...new Set(next.members)].sort(),
        updatedAt: call.ctx.now(),
      }),
    );
    if (updated === "display-name-taken")
      refuse("uniqueness", `The directory has a group named ${next.displayName} already.`);
    if (updated === null) return refuseStatus(404, `The directory has no group ${current.id}.`);
    if (updated === "conflict") return updated;
    const renamed = changes.fields.includes("displayName");
    touched = {
      joined: renamed ? updated.memberIds : changes.membersAdded,
      left: renamed ? current.memberIds : changes.membersRemoved,
      name: current.displayName,
    };
    return updated;
  });
  await syncGroupMembers(call, touched.left, [touched.name]);
  await syncGroupMembers(call, touched.joined);
  return scimAnswer(200, groupJson(call, groupOf(record)));
}

/** `PUT /Groups/:id`: its members replaced by the body's. */
export async function replaceGroup(call: ScimCall): Promise<HttpResponse> {
  const body = await call.input.body<unknown>();
  return writeGroup(call, (group) => unwrap(replaceScimGroup(group, body, { now: call.ctx.now() })));
}

/** `PATCH /Groups/:id` (Entra ID's member adds and removes, Okta's `replace` of members or name). */
export async function patchGroup(call: ScimCall): Promise<HttpResponse> {
  const body = await call.input.body<unknown>();
  return writeGroup(call, (group) => unwrap(applyScimPatch(group, body, { now: call.ctx.now() })));
}

/** `DELETE /Groups/:id` (204): its former members' roles follow the groups they are left in. */
export async function deleteGroup(call: ScimCall): Promise<HttpResponse> {
  const record = await pathGroup(call);
  await stored(() => call.scim.deleteScimGroup(call.connectionId, record.id));
  await syncGroupMembers(call, record.memberIds, [record.displayName]);
  return scimAnswer(204, null);
}
