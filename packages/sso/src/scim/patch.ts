import { ScimError as PatchLibraryError, type ScimPatchOperation, scimPatch } from "scim-patch";
import { type Filter, parse } from "scim2-parse-filter";
import { canonicalAttributeName, KEPT_ATTRIBUTES, withoutCoreSchema } from "./attribute-names.js";
import {
  type ScimGroupChanges,
  type ScimUserChanges,
  type ScimWrite,
  type ScimWriteOptions,
  writeGroupAttributes,
  writeUserAttributes,
} from "./changes.js";
import type { ScimResult } from "./errors.js";
import { attributeOf, guard, isJsonObject, refuse, requireSchema } from "./read-json.js";
import { readGroupAttributes, readUserAttributes } from "./read-resources.js";
import { type ScimGroup, type ScimUser, toScimGroupJson, toScimUserJson } from "./resources.js";
import { SCIM_PATCH_OP_SCHEMA } from "./urns.js";

/** The most operations one PATCH may carry. */
export const SCIM_MAX_PATCH_OPERATIONS = 1000;

type ResourceType = "User" | "Group";
type PatchOperation = { op: "add" | "remove" | "replace"; path?: string; value?: unknown };
/** Members removed by id, applied here: scim-patch cannot parse a path whose filter holds a ":". */
type MemberRemoval = { op: "remove-members"; ids: string[] };
type Operation = PatchOperation | MemberRemoval;
type Document = Record<string, unknown> & { schemas: string[]; meta: { created: Date; lastModified: Date } };

const PATH = /^([A-Za-z$][\w$-]*)(?:\[(.+)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

interface Target {
  /** The path with its attribute names spelled as RFC 7643 does. */
  path: string;
  attribute: string;
  filter: Filter | null;
  sub: string | null;
}

/**
 * The target of a path (clients may spell attribute names in any case); null when it names an
 * attribute this server does not keep (an extension's, `title`, `addresses`…), whose operation
 * is then ignored. Refused as `invalidPath` when it is not a path.
 */
function targetOf(path: string, type: ResourceType): Target | null {
  const rest = withoutCoreSchema(path);
  if (rest === null) return null;
  const match = PATH.exec(rest);
  if (!match) return refuse("invalidPath", `${JSON.stringify(path)} is not an attribute path.`);
  const [, name = "", filterText, subName] = match;
  let filter: Filter | null = null;
  if (filterText !== undefined) {
    try {
      filter = parse(filterText);
    } catch {
      return refuse("invalidPath", `The filter in ${JSON.stringify(path)} is not valid.`);
    }
  }
  const attribute = canonicalAttributeName(name);
  if (!KEPT_ATTRIBUTES[type].has(attribute)) return null;
  const sub = subName === undefined ? null : canonicalAttributeName(subName);
  const canonical = `${attribute}${filterText === undefined ? "" : `[${filterText}]`}${sub === null ? "" : `.${sub}`}`;
  return { path: canonical, attribute, filter, sub };
}

/** The ids of Entra's `{ op: "Remove", path: "members", value: [{ value: id }] }`. */
function memberIdsOfValue(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    const id = isJsonObject(item) ? attributeOf(item, "value") : item;
    if (typeof id !== "string") return refuse("invalidValue", "Members to remove must be given by value.");
    return id;
  });
}

/** The ids of Okta's `members[value eq "…"]` (or several joined by `or`); null for another filter. */
function memberIdsOfFilter(filter: Filter): string[] | null {
  if (
    filter.op === "eq" &&
    filter.attrPath.toLowerCase() === "value" &&
    typeof filter.compValue === "string"
  ) {
    return [filter.compValue];
  }
  if (filter.op !== "or") return null;
  const parts = filter.filters.map(memberIdsOfFilter);
  return parts.every((part) => part !== null) ? parts.flat() : null;
}

/** A removal of a group's members by id, or null when scim-patch is to apply the operation. */
function memberRemoval(target: Target, value: unknown, hasValue: boolean): MemberRemoval | null {
  if (target.attribute !== "members" || target.sub !== null) return null;
  if (target.filter === null) return hasValue ? { op: "remove-members", ids: memberIdsOfValue(value) } : null;
  const ids = memberIdsOfFilter(target.filter);
  return ids === null ? null : { op: "remove-members", ids };
}

/** One operation of the body as operations scim-patch applies as the RFC says (none when ignored). */
function normalizeOperation(raw: unknown, type: ResourceType): Operation[] {
  if (!isJsonObject(raw)) return refuse("invalidSyntax", "Each operation must be an object.");
  const opName = attributeOf(raw, "op");
  const op = typeof opName === "string" ? opName.toLowerCase() : "";
  if (op !== "add" && op !== "remove" && op !== "replace") {
    return refuse("invalidSyntax", 'op must be "add", "remove" or "replace".');
  }
  const rawPath = attributeOf(raw, "path");
  const value = attributeOf(raw, "value");
  const hasValue = value !== undefined;
  if (rawPath !== undefined && typeof rawPath !== "string")
    return refuse("invalidSyntax", "path must be a string.");
  if (op !== "remove" && !hasValue) return refuse("invalidSyntax", `The ${op} operation must have a value.`);
  if (rawPath === undefined || rawPath === "") {
    if (op === "remove") return refuse("noTarget", "A remove operation must have a path.");
    if (!isJsonObject(value)) return refuse("invalidSyntax", "Without a path, value must be an object.");
    // One operation per attribute, so that a complex attribute is merged and a multi-valued one
    // added to (RFC 7644 §3.5.2.1/3), as with a path; scim-patch would replace either whole.
    return Object.entries(value).flatMap(([key, item]) =>
      normalizeOperation({ op, path: key, value: item }, type),
    );
  }
  const target = targetOf(rawPath, type);
  if (target === null) return [];
  const removal = op === "remove" && type === "Group" ? memberRemoval(target, value, hasValue) : null;
  if (removal !== null) return [removal];
  return [hasValue ? { op, path: target.path, value } : { op, path: target.path }];
}

function readOperations(body: unknown, type: ResourceType): Operation[] {
  if (!isJsonObject(body)) return refuse("invalidSyntax", "The body must be a JSON object.");
  requireSchema(body, SCIM_PATCH_OP_SCHEMA);
  const operations = attributeOf(body, "Operations");
  if (!Array.isArray(operations) || operations.length === 0) {
    return refuse("invalidSyntax", "Operations must be a non-empty array.");
  }
  if (operations.length > SCIM_MAX_PATCH_OPERATIONS) {
    return refuse("invalidSyntax", `A PATCH carries at most ${SCIM_MAX_PATCH_OPERATIONS} operations.`);
  }
  return operations.flatMap((operation) => normalizeOperation(operation, type));
}

/** Whether scim-patch refused a remove because its filter matched nothing (then nothing to remove). */
function isUnmatchedFilter(error: unknown): boolean {
  // FilterOnEmptyArray and FilterArrayTargetNotFound are not exported by scim-patch; both carry these.
  return error instanceof PatchLibraryError && "valuePath" in error && "attrName" in error;
}

/**
 * Applies the operations one at a time, putting back the multi-valued attributes scim-patch
 * deletes when they become empty (a later filter on them would fail otherwise).
 */
function applyOperations(document: Document, operations: Operation[], arrays: string[]): Document {
  let current = document;
  for (const operation of operations) {
    for (const name of arrays) current[name] ??= [];
    if (operation.op === "remove-members") {
      const ids = new Set(operation.ids);
      const members = current.members;
      if (!Array.isArray(members)) return refuse("invalidValue", "members must be an array.");
      current.members = members.filter(
        (member) => !isJsonObject(member) || !ids.has(String(attributeOf(member, "value"))),
      );
      continue;
    }
    try {
      current = scimPatch(current, [operation as ScimPatchOperation], {
        mutateDocument: false,
        treatMissingAsAdd: true,
      });
    } catch (error) {
      if (operation.op === "remove" && isUnmatchedFilter(error)) continue;
      const noTarget = error instanceof PatchLibraryError && error.scimCode === "noTarget";
      const detail = error instanceof PatchLibraryError ? error.message : "The operation cannot be applied.";
      return refuse(noTarget ? "noTarget" : "invalidValue", detail);
    }
  }
  return current;
}

function refuseReadOnlyChange(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  names: string[],
): void {
  for (const name of names) {
    if (JSON.stringify(before[name]) !== JSON.stringify(after[name])) {
      refuse("mutability", `${name} is read-only.`);
    }
  }
}

function patchDocument(json: object): Document {
  return JSON.parse(JSON.stringify(json)) as Document;
}

function patchUser(
  user: ScimUser,
  body: unknown,
  options: ScimWriteOptions,
): ScimWrite<ScimUser, ScimUserChanges> {
  const operations = readOperations(body, "User");
  const before = patchDocument({
    ...toScimUserJson(user, { baseUrl: "" }),
    groups: user.groups.map((value) => ({ value })),
  });
  const after = applyOperations(patchDocument(before), operations, ["emails", "groups"]);
  refuseReadOnlyChange(before, after, ["id", "meta", "groups"]);
  return writeUserAttributes(user, readUserAttributes(after, false), options);
}

function patchGroup(
  group: ScimGroup,
  body: unknown,
  options: ScimWriteOptions,
): ScimWrite<ScimGroup, ScimGroupChanges> {
  const operations = readOperations(body, "Group");
  const before = patchDocument({
    ...toScimGroupJson(group, { baseUrl: "" }),
    members: group.members.map((value) => ({ value })),
  });
  const after = applyOperations(patchDocument(before), operations, ["members"]);
  refuseReadOnlyChange(before, after, ["id", "meta"]);
  return writeGroupAttributes(group, readGroupAttributes(after, false), options);
}

/**
 * Applies a SCIM PATCH body (RFC 7644 §3.5.2) to a stored user or group, with scim-patch, and
 * answers the resource as it would be, with what changed; nothing is stored.
 *
 * Accepted as Okta and Microsoft Entra ID send them: `op` in any case ("Replace", "Add"),
 * `active` (and `primary`) as "True" / "False", attribute names in any case, paths with the core
 * schema's URN or a filter (`emails[type eq "work"].value`, `members[value eq "…"]`), a value
 * object without a path (`{ op: "replace", value: { active: false } }`: each attribute is
 * patched as if by path), and Entra's member removal by value (`{ op: "Remove", path: "members",
 * value: [{ value: id }] }`). Operations on attributes the server does not keep (extensions,
 * `title`, `addresses`…) are ignored; a remove whose filter matches nothing changes nothing.
 *
 * Refusals: `invalidSyntax` (not a PatchOp body, an unknown op, add/replace without value),
 * `noTarget` (remove without path, replace whose filter matches nothing), `invalidPath`,
 * `mutability` (a change of `id`, `meta`, or a user's `groups`), `invalidValue` (the result
 * breaks the resource: no `userName`, an address that is not one, a member without id).
 *
 * The caller checks a new `userName` / `displayName` is free and new members exist, stores the
 * resource when `changes.fields` is not empty (`lastModified` = `options.now` then), and acts on
 * `deactivated`, `reactivated`, `membersAdded` and `membersRemoved`.
 */
export function applyScimPatch(
  resource: ScimUser,
  body: unknown,
  options?: ScimWriteOptions,
): ScimResult<ScimWrite<ScimUser, ScimUserChanges>>;
export function applyScimPatch(
  resource: ScimGroup,
  body: unknown,
  options?: ScimWriteOptions,
): ScimResult<ScimWrite<ScimGroup, ScimGroupChanges>>;
export function applyScimPatch(
  resource: ScimUser | ScimGroup,
  body: unknown,
  options: ScimWriteOptions = {},
): ScimResult<ScimWrite<ScimUser, ScimUserChanges> | ScimWrite<ScimGroup, ScimGroupChanges>> {
  return guard(() =>
    "userName" in resource ? patchUser(resource, body, options) : patchGroup(resource, body, options),
  );
}
