import { type Filter, parse } from "scim2-parse-filter";
import { withoutCoreSchema } from "./attribute-names.js";
import type { ScimResult } from "./errors.js";
import { guard, refuse } from "./read-json.js";
import type { ScimGroup, ScimUser } from "./resources.js";

/** The longest filter accepted (longer ones are refused as `invalidFilter`). */
export const SCIM_MAX_FILTER_LENGTH = 4096;

type Kind = "string" | "boolean" | "dateTime" | "complex";
type CompValue = string | number | boolean | null;

/** How one attribute of a resource `R` is compared: its type, `caseExact`, and its values. */
interface Rule<R> {
  kind: Kind;
  caseExact: boolean;
  values(resource: R): unknown[];
}

/** A multi-valued complex attribute, for `emails[type eq "work"]`: its elements and their rules. */
interface Multi<R> {
  compile(filter: Filter): (resource: R) => boolean;
}

interface Schema<R> {
  rules: Record<string, Rule<R>>;
  multis: Record<string, Multi<R>>;
}

const text = <R>(caseExact: boolean, values: (r: R) => unknown[]): Rule<R> => ({
  kind: "string",
  caseExact,
  values,
});
const bool = <R>(values: (r: R) => unknown[]): Rule<R> => ({ kind: "boolean", caseExact: true, values });
const date = <R>(values: (r: R) => unknown[]): Rule<R> => ({ kind: "dateTime", caseExact: true, values });

function multi<R, E>(elements: (r: R) => E[], rules: Record<string, Rule<E>>): Multi<R> {
  return {
    compile(filter) {
      const test = compile(filter, { rules, multis: {} });
      return (resource) => elements(resource).some(test);
    },
  };
}

const EMAIL_RULES = {
  value: text<ScimUser["emails"][number]>(false, (e) => [e.value]),
  type: text<ScimUser["emails"][number]>(false, (e) => [e.type]),
  primary: bool<ScimUser["emails"][number]>((e) => [e.primary]),
};
const ID_RULES = { value: text<string>(true, (id) => [id]) };

const USER_SCHEMA: Schema<ScimUser> = {
  rules: {
    id: text(true, (u) => [u.id]),
    externalid: text(true, (u) => [u.externalId]),
    username: text(false, (u) => [u.userName]),
    displayname: text(false, (u) => [u.displayName]),
    active: bool((u) => [u.active]),
    name: { kind: "complex", caseExact: true, values: (u) => [u.name] },
    "name.givenname": text(false, (u) => [u.name?.givenName]),
    "name.familyname": text(false, (u) => [u.name?.familyName]),
    "name.formatted": text(false, (u) => [u.name?.formatted]),
    emails: text(false, (u) => u.emails.map((e) => e.value)),
    "emails.value": text(false, (u) => u.emails.map((e) => e.value)),
    "emails.type": text(false, (u) => u.emails.map((e) => e.type)),
    "emails.primary": bool((u) => u.emails.map((e) => e.primary)),
    groups: text(true, (u) => u.groups),
    "groups.value": text(true, (u) => u.groups),
    "meta.created": date((u) => [u.created]),
    "meta.lastmodified": date((u) => [u.lastModified]),
    "meta.resourcetype": text(true, () => ["User"]),
  },
  multis: {
    emails: multi((u: ScimUser) => u.emails, EMAIL_RULES),
    groups: multi((u: ScimUser) => u.groups, ID_RULES),
  },
};

const GROUP_SCHEMA: Schema<ScimGroup> = {
  rules: {
    id: text(true, (g) => [g.id]),
    externalid: text(true, (g) => [g.externalId]),
    displayname: text(false, (g) => [g.displayName]),
    members: text(true, (g) => g.members),
    "members.value": text(true, (g) => g.members),
    "meta.created": date((g) => [g.created]),
    "meta.lastmodified": date((g) => [g.lastModified]),
    "meta.resourcetype": text(true, () => ["Group"]),
  },
  multis: { members: multi((g: ScimGroup) => g.members, ID_RULES) },
};

function attributeKey(attrPath: string): string {
  const path = withoutCoreSchema(attrPath);
  if (path === null) return refuse("invalidFilter", `Filtering on ${attrPath} is not supported.`);
  return path.toLowerCase();
}

function present(values: unknown[]): unknown[] {
  return values.filter((value) => value !== null && value !== undefined && value !== "");
}

const ORDER_OPS = new Set(["gt", "ge", "lt", "le"]);

function order(op: string, difference: number): boolean {
  if (op === "gt") return difference > 0;
  if (op === "ge") return difference >= 0;
  if (op === "lt") return difference < 0;
  return difference <= 0;
}

function stringTest(op: string, compValue: CompValue, caseExact: boolean): (value: unknown) => boolean {
  if (typeof compValue !== "string")
    return refuse("invalidFilter", "This attribute is compared with a string.");
  const fold = (value: string) => (caseExact ? value : value.toLowerCase());
  const wanted = fold(compValue);
  return (value) => {
    const have = fold(String(value));
    if (op === "eq") return have === wanted;
    if (op === "co") return have.includes(wanted);
    if (op === "sw") return have.startsWith(wanted);
    if (op === "ew") return have.endsWith(wanted);
    return order(op, have < wanted ? -1 : have > wanted ? 1 : 0);
  };
}

function booleanTest(op: string, compValue: CompValue): (value: unknown) => boolean {
  if (op !== "eq") return refuse("invalidFilter", `A boolean cannot be compared with ${op}.`);
  const folded = typeof compValue === "string" ? compValue.toLowerCase() : compValue;
  if (folded !== true && folded !== false && folded !== "true" && folded !== "false") {
    return refuse("invalidFilter", "This attribute is compared with true or false.");
  }
  const wanted = folded === true || folded === "true";
  return (value) => value === wanted;
}

function dateTest(op: string, compValue: CompValue): (value: unknown) => boolean {
  const wanted = typeof compValue === "string" ? Date.parse(compValue) : Number.NaN;
  if (Number.isNaN(wanted))
    return refuse("invalidFilter", "This attribute is compared with a date and time.");
  if (op !== "eq" && !ORDER_OPS.has(op))
    return refuse("invalidFilter", `A date cannot be compared with ${op}.`);
  return (value) => (op === "eq" ? value === wanted : order(op, Number(value) - wanted));
}

/** The test of one comparison, `ne` as the negation of `eq` and `eq null` as "not present". */
function comparison<R>(rule: Rule<R>, op: string, compValue: CompValue): (resource: R) => boolean {
  if (compValue === null && (op === "eq" || op === "ne")) {
    return (resource) => (present(rule.values(resource)).length === 0) === (op === "eq");
  }
  const positive = op === "ne" ? "eq" : op;
  let test: (value: unknown) => boolean;
  if (rule.kind === "string") test = stringTest(positive, compValue, rule.caseExact);
  else if (rule.kind === "boolean") test = booleanTest(positive, compValue);
  else if (rule.kind === "dateTime") test = dateTest(positive, compValue);
  else return refuse("invalidFilter", "A complex attribute can only be tested with pr.");
  const matches = (resource: R) => present(rule.values(resource)).some(test);
  return op === "ne" ? (resource) => !matches(resource) : matches;
}

function compile<R>(filter: Filter, schema: Schema<R>): (resource: R) => boolean {
  switch (filter.op) {
    case "and":
    case "or": {
      const parts = filter.filters.map((part) => compile(part, schema));
      return filter.op === "and"
        ? (resource) => parts.every((part) => part(resource))
        : (resource) => parts.some((part) => part(resource));
    }
    case "not": {
      const inner = compile(filter.filter, schema);
      return (resource) => !inner(resource);
    }
    case "[]": {
      const target = schema.multis[attributeKey(filter.attrPath)];
      if (!target) return refuse("invalidFilter", `${filter.attrPath} cannot take a value filter.`);
      return target.compile(filter.valFilter);
    }
    default: {
      const rule = schema.rules[attributeKey(filter.attrPath)];
      if (!rule) return refuse("invalidFilter", `Filtering on ${filter.attrPath} is not supported.`);
      if (filter.op === "pr") return (resource) => present(rule.values(resource)).length > 0;
      return comparison(rule, filter.op, filter.compValue);
    }
  }
}

/** The attributes a store answers with one indexed read, by name as in the filter (lower case). */
const INDEXED = {
  User: { id: "id", externalid: "externalId", username: "userName" },
  Group: { id: "id", externalid: "externalId", displayname: "displayName" },
} as const;

/**
 * The common case of a filter a store answers with one indexed read: `<attribute> eq "<value>"`
 * (Okta's `userName eq "…"`, Entra's `externalId eq "…"`, `displayName eq "…"` for groups).
 * `caseExact` false (userName, a group's displayName) means the store compares without case.
 * `exact` true: the filter is that comparison alone; false: it is one part of an `and`, and the
 * store's answer must still be passed through `matches`.
 */
export interface ScimFilterLookup<A extends string> {
  attribute: A;
  value: string;
  caseExact: boolean;
  exact: boolean;
}

function lookupOf<A extends string>(
  filter: Filter,
  indexed: Record<string, A>,
  schema: Schema<unknown>,
): ScimFilterLookup<A> | null {
  const comparisons = filter.op === "and" ? filter.filters : [filter];
  for (const key of Object.keys(indexed)) {
    for (const part of comparisons) {
      if (part.op !== "eq" || typeof part.compValue !== "string") continue;
      const path = withoutCoreSchema(part.attrPath)?.toLowerCase();
      const attribute = indexed[key];
      if (path !== key || attribute === undefined) continue;
      const caseExact = schema.rules[key]?.caseExact ?? true;
      return { attribute, value: part.compValue, caseExact, exact: part === filter };
    }
  }
  return null;
}

/** A parsed filter (RFC 7644 §3.4.2.2): its syntax tree, a test of one resource, and its indexed read. */
export interface ScimFilter<R, A extends string> {
  ast: Filter;
  matches(resource: R): boolean;
  lookup: ScimFilterLookup<A> | null;
}

function compileFilter<R, A extends string>(
  text: string,
  schema: Schema<R>,
  indexed: Record<string, A>,
): ScimResult<ScimFilter<R, A>> {
  return guard(() => {
    if (text.length > SCIM_MAX_FILTER_LENGTH) refuse("invalidFilter", "The filter is too long.");
    let ast: Filter;
    try {
      ast = parse(text);
    } catch (error) {
      return refuse("invalidFilter", `The filter is not valid: ${(error as Error).message}`);
    }
    const matches = compile(ast, schema);
    return { ast, matches, lookup: lookupOf(ast, indexed, schema as Schema<unknown>) };
  });
}

/**
 * Parses a `filter` of `GET /Users` (with scim2-parse-filter) into a test of stored users.
 * Operators eq, ne, co, sw, ew, pr, gt, ge, lt, le, and, or, not, and value filters
 * (`emails[type eq "work" and value co "@example.com"]`); attribute names in any case, with or
 * without the core schema's URN. `userName`, `displayName`, `name.*` and `emails` are compared
 * without case, `id`, `externalId` and `groups` with (RFC 7643 `caseExact`); `active` and
 * `emails.primary` take eq/ne with true/false; `meta.created` / `meta.lastModified` take dates.
 * Refused as `invalidFilter`: bad syntax, an attribute not listed here (e.g. an extension's), an
 * operator or a value that does not fit the attribute's type. A missing `filter` query is no
 * filter at all: do not call this with "".
 */
export function compileScimUserFilter(
  text: string,
): ScimResult<ScimFilter<ScimUser, "id" | "externalId" | "userName">> {
  return compileFilter(text, USER_SCHEMA, INDEXED.User);
}

/**
 * Parses a `filter` of `GET /Groups` as `compileScimUserFilter` does; attributes `id`,
 * `externalId`, `displayName` (without case), `members` / `members.value`, `meta.*`.
 */
export function compileScimGroupFilter(
  text: string,
): ScimResult<ScimFilter<ScimGroup, "id" | "externalId" | "displayName">> {
  return compileFilter(text, GROUP_SCHEMA, INDEXED.Group);
}
