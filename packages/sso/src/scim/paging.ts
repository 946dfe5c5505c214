import { canonicalAttributeName, withoutCoreSchema } from "./attribute-names.js";
import { type ScimResult, scimFail, scimOk } from "./errors.js";
import { SCIM_LIST_RESPONSE_SCHEMA } from "./urns.js";

/** The most resources one list answers unless told otherwise (`filter.maxResults` of the config). */
export const SCIM_DEFAULT_MAX_RESULTS = 100;

/** A page of a list: `startIndex` 1-based, `count` resources at most (0: only `totalResults`). */
export interface ScimPage {
  startIndex: number;
  count: number;
}

/** A list answer (RFC 7644 §3.4.2). */
export interface ScimListResponse<T> {
  schemas: [typeof SCIM_LIST_RESPONSE_SCHEMA];
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources: T[];
}

function integer(value: unknown, name: string): ScimResult<number | null> {
  if (value === undefined || value === null || value === "") return scimOk(null);
  const number =
    typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(number)) return scimFail("invalidValue", `${name} must be an integer.`);
  return scimOk(number);
}

/**
 * The page a list asks for, from its `startIndex` and `count` query parameters (strings, as in a
 * query string, or numbers): `startIndex` below 1 or absent is 1; `count` absent is `maxCount`,
 * negative is 0, above `maxCount` is `maxCount` (RFC 7644 §3.4.2.4). Refused as `invalidValue`
 * when either is not an integer.
 */
export function readScimPage(
  query: { startIndex?: unknown; count?: unknown },
  maxCount: number = SCIM_DEFAULT_MAX_RESULTS,
): ScimResult<ScimPage> {
  const startIndex = integer(query.startIndex, "startIndex");
  if (!startIndex.ok) return startIndex;
  const count = integer(query.count, "count");
  if (!count.ok) return count;
  return scimOk({
    startIndex: Math.max(1, startIndex.value ?? 1),
    count: Math.min(maxCount, Math.max(0, count.value ?? maxCount)),
  });
}

/**
 * The list answer of one page: `resources` are that page's (a store read them with offset
 * `startIndex - 1` and limit `count`), `totalResults` counts every match.
 */
export function scimListResponse<T>(
  resources: T[],
  totalResults: number,
  startIndex: number,
): ScimListResponse<T> {
  return {
    schemas: [SCIM_LIST_RESPONSE_SCHEMA],
    totalResults,
    itemsPerPage: resources.length,
    startIndex,
    Resources: resources,
  };
}

/** The list answer of `page` out of every match `all`, in memory. */
export function scimListPage<T>(all: T[], page: ScimPage): ScimListResponse<T> {
  const offset = page.startIndex - 1;
  return scimListResponse(all.slice(offset, offset + page.count), all.length, page.startIndex);
}

const ALWAYS_RETURNED = new Set(["schemas", "id"]);

function attributeNames(list: unknown): Set<string> | null {
  if (typeof list !== "string" || list.trim() === "") return null;
  const names = list.split(",").map((item) => {
    const path = withoutCoreSchema(item) ?? item.trim();
    return canonicalAttributeName(path.split(".")[0] ?? path);
  });
  return new Set(names);
}

/**
 * A resource's JSON with only the attributes asked for (RFC 7644 §3.9): `attributes` (a
 * comma-separated list) keeps those, `excludedAttributes` (Entra sends `members` when it lists
 * groups) drops them; `schemas` and `id` are always kept. Names are compared without case, with or
 * without the core schema's URN; a sub-attribute (`name.givenName`) stands for its attribute.
 */
export function projectScimJson<T extends object>(
  json: T,
  query: { attributes?: unknown; excludedAttributes?: unknown },
): Partial<T> {
  const keep = attributeNames(query.attributes);
  const drop = attributeNames(query.excludedAttributes);
  const entries = Object.entries(json).filter(([name]) => {
    if (ALWAYS_RETURNED.has(name)) return true;
    if (keep !== null) return keep.has(name);
    return drop === null || !drop.has(name);
  });
  return Object.fromEntries(entries) as Partial<T>;
}
