import type { RouteInput, ScimPageQuery } from "@portcullis/core";
import type { ScimPage } from "../scim/paging.js";
import { stored } from "./context.js";

/** How many records one store read of a listing takes. */
const CHUNK = 1000;

/** The query parameters a SCIM list or read takes (absent ones undefined). */
export interface ScimQuery {
  filter?: string;
  startIndex?: string;
  count?: string;
  attributes?: string;
  excludedAttributes?: string;
}

/** The SCIM parameters of the request's query string. */
export function queryOf(input: RouteInput): ScimQuery {
  const query: ScimQuery = {};
  for (const name of ["filter", "startIndex", "count", "attributes", "excludedAttributes"] as const) {
    const value = input.query.get(name);
    if (value !== null) query[name] = value;
  }
  return query;
}

/**
 * The records of `page` (SCIM's 1-based `startIndex` and `count`) from a listing read in id order,
 * a chunk after another.
 */
export async function pageOfRecords<T extends { id: string }>(
  list: (page: ScimPageQuery) => Promise<T[]>,
  page: ScimPage,
): Promise<T[]> {
  const found: T[] = [];
  let skip = page.startIndex - 1;
  let after: string | undefined;
  while (found.length < page.count) {
    const chunk = await stored(() => list(after === undefined ? { limit: CHUNK } : { after, limit: CHUNK }));
    const rest = chunk.slice(Math.min(skip, chunk.length));
    skip -= chunk.length - rest.length;
    found.push(...rest.slice(0, page.count - found.length));
    if (chunk.length < CHUNK) break;
    after = chunk[chunk.length - 1]?.id;
  }
  return found;
}

/** Every record of a listing read in id order, a chunk after another (for a filter no index answers). */
export async function everyRecord<T extends { id: string }>(
  list: (page: ScimPageQuery) => Promise<T[]>,
): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (;;) {
    const chunk = await stored(() => list(after === undefined ? { limit: CHUNK } : { after, limit: CHUNK }));
    all.push(...chunk);
    if (chunk.length < CHUNK) return all;
    after = chunk[chunk.length - 1]?.id;
  }
}
