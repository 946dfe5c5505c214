import { randomUUID } from "node:crypto";
import type { HttpResponse, ScimUserRecord } from "@portcullis/core";
import type { ScimUserChanges, ScimWrite } from "../scim/changes.js";
import { replaceScimUser } from "../scim/changes.js";
import { compileScimUserFilter } from "../scim/filter.js";
import { projectScimJson, readScimPage, scimListPage, scimListResponse } from "../scim/paging.js";
import { applyScimPatch } from "../scim/patch.js";
import { readScimUser } from "../scim/read-resources.js";
import { type ScimUser, scimLocation, toScimUserJson } from "../scim/resources.js";
import { stored } from "./context.js";
import {
  addressOf,
  keptAttributes,
  nameOf,
  suspendUser,
  syncActiveMember,
  userOf,
  usersWithGroups,
  withGroups,
} from "./scim-directory.js";
import { refuse, refuseStatus, type ScimCall, scimAnswer, unwrap, withRetries } from "./scim-http.js";
import { everyRecord, pageOfRecords, queryOf } from "./scim-lists.js";

/** A user's SCIM JSON with the attributes the query asks for. */
const userJson = (call: ScimCall, user: ScimUser) =>
  projectScimJson(toScimUserJson(user, { baseUrl: call.baseUrl }), queryOf(call.input));

/** The user's answer (with `Location` when created). */
function userAnswer(call: ScimCall, user: ScimUser, status = 200): HttpResponse {
  const location = scimLocation(call.baseUrl, "User", user.id);
  return scimAnswer(status, userJson(call, user), status === 201 ? { location } : {});
}

/** The connection's user of the path's id; 404 in SCIM's shape when it has none. */
async function pathUser(call: ScimCall): Promise<ScimUserRecord> {
  const id = call.input.params.id ?? "";
  const record = await stored(() => call.scim.findScimUser(call.connectionId, id));
  return record ?? refuseStatus(404, `The directory has no user ${id}.`);
}

/** `GET /Users`: a page of the connection's users, those a `filter` matches when it has one. */
export async function listUsers(call: ScimCall): Promise<HttpResponse> {
  const query = queryOf(call.input);
  const page = unwrap(readScimPage(query));
  const usersOf = (records: ScimUserRecord[]) => usersWithGroups(call, records);
  if (query.filter === undefined) {
    const total = await stored(() => call.scim.countScimUsers(call.connectionId));
    const records = await pageOfRecords((chunk) => call.scim.listScimUsers(call.connectionId, chunk), page);
    const resources = (await usersOf(records)).map((user) => userJson(call, user));
    return scimAnswer(200, scimListResponse(resources, total, page.startIndex));
  }
  const filter = unwrap(compileScimUserFilter(query.filter));
  const { lookup } = filter;
  const candidates =
    lookup === null
      ? await everyRecord((chunk) => call.scim.listScimUsers(call.connectionId, chunk))
      : [await findBy(call, lookup.attribute, lookup.value)].filter((record) => record !== null);
  const matched = (await usersOf(candidates)).filter((user) => filter.matches(user));
  const listed = scimListPage(matched, page);
  return scimAnswer(200, { ...listed, Resources: listed.Resources.map((user) => userJson(call, user)) });
}

/** The user an indexed filter names (Okta's `userName eq "…"`, Entra's `externalId eq "…"`). */
function findBy(call: ScimCall, attribute: "id" | "externalId" | "userName", value: string) {
  const { scim, connectionId } = call;
  return stored(() =>
    attribute === "id"
      ? scim.findScimUser(connectionId, value)
      : attribute === "userName"
        ? scim.findScimUserByUserName(connectionId, value)
        : scim.findScimUserByExternalId(connectionId, value),
  );
}

/** `GET /Users/:id`. */
export async function getUser(call: ScimCall): Promise<HttpResponse> {
  return userAnswer(call, (await withGroups(call, await pathUser(call))).user);
}

/**
 * `POST /Users`: the account of the user's address (a domain the organization verified; an
 * existing verified account, or a new one), then the user stored; an active user becomes a member
 * with the default role. 409 `uniqueness` when the directory has the `userName` already, or a user
 * for that account.
 */
export async function createUser(call: ScimCall): Promise<HttpResponse> {
  const attributes = unwrap(readScimUser(await call.input.body<unknown>()));
  const { scim, connectionId } = call;
  if ((await stored(() => scim.findScimUserByUserName(connectionId, attributes.userName))) !== null)
    refuse("uniqueness", `The directory has a user named ${attributes.userName} already.`);
  const email = addressOf(attributes);
  if (email === null)
    refuse("invalidValue", "The user has no address: give emails, or a userName that is one.");
  const { userId } = await call.ctx.auth.sso.provisionAccount(
    { request: call.input.meta },
    { connectionId, email, name: nameOf(attributes) },
  );
  const now = call.ctx.now();
  const record: ScimUserRecord = {
    connectionId,
    id: randomUUID(),
    userId,
    userName: attributes.userName,
    externalId: attributes.externalId,
    active: attributes.active,
    suspendedRole: null,
    attributes: keptAttributes(attributes),
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  // A user created inactive whose account is a member already (signed in through the connection
  // before the directory knew it): its access ends first, and the role it had is kept with it.
  if (!record.active) record.suspendedRole = await suspendUser(call, record);
  const outcome = await stored(() => scim.createScimUser(record));
  if (outcome === "user-name-taken")
    refuse("uniqueness", `The directory has a user named ${attributes.userName} already.`);
  if (outcome === "user-taken")
    refuse("uniqueness", "The directory has a user for this address's account already.");
  // A new user is in no group yet (SCIM adds members through the groups).
  if (record.active) await syncActiveMember(call, record, []);
  return userAnswer(call, userOf(record, []), 201);
}

/**
 * A write of the path's user (`PUT` or `PATCH`): `change` makes the new resource from the one
 * stored, retried on a concurrent change. Deactivation ends the account's access before the
 * user is stored inactive, reactivation gives its membership back first; an active user's
 * membership is brought in line on every write, so a write that failed halfway is finished by the
 * next.
 */
async function writeUser(
  call: ScimCall,
  change: (user: ScimUser) => ScimWrite<ScimUser, ScimUserChanges>,
): Promise<HttpResponse> {
  const { scim, connectionId } = call;
  // The role a first attempt's deactivation took away: a retry finds the membership gone.
  let suspended: string | null = null;
  const written = await withRetries(async () => {
    const current = await pathUser(call);
    const { user, groupNames } = await withGroups(call, current);
    const { resource: next, changes } = change(user);
    if (changes.deactivated) suspended = (await suspendUser(call, current)) ?? suspended;
    const suspendedRole = changes.deactivated ? suspended : current.suspendedRole;
    if (next.active)
      await syncActiveMember(call, current, groupNames, changes.reactivated ? current.suspendedRole : null);
    if (changes.fields.length === 0) return user;
    const updated = await stored(() =>
      scim.updateScimUser(connectionId, current.id, current.version, {
        userName: next.userName,
        externalId: next.externalId,
        active: next.active,
        suspendedRole: next.active ? null : suspendedRole,
        attributes: keptAttributes(next),
        updatedAt: call.ctx.now(),
      }),
    );
    if (updated === "user-name-taken")
      refuse("uniqueness", `The directory has a user named ${next.userName} already.`);
    if (updated === "conflict") return updated;
    // A user's write changes none of its groups.
    return updated === null
      ? refuseStatus(404, `The directory has no user ${current.id}.`)
      : userOf(updated, user.groups);
  });
  return userAnswer(call, written);
}

/** `PUT /Users/:id` (Okta sends the whole user). */
export async function replaceUser(call: ScimCall): Promise<HttpResponse> {
  const body = await call.input.body<unknown>();
  return writeUser(call, (user) => unwrap(replaceScimUser(user, body, { now: call.ctx.now() })));
}

/** `PATCH /Users/:id` (Entra ID's `"op": "Replace"` with `"active": "False"`, Okta's `replace`). */
export async function patchUser(call: ScimCall): Promise<HttpResponse> {
  const body = await call.input.body<unknown>();
  return writeUser(call, (user) => unwrap(applyScimPatch(user, body, { now: call.ctx.now() })));
}

/** `DELETE /Users/:id`: the account's access ends as for a deactivation, then the user is deleted (204). */
export async function deleteUser(call: ScimCall): Promise<HttpResponse> {
  const record = await pathUser(call);
  await suspendUser(call, record);
  await stored(() => call.scim.deleteScimUser(call.connectionId, record.id));
  return scimAnswer(204, null);
}
