import type { ScimResult } from "./errors.js";
import {
  attributeOf,
  guard,
  isJsonObject,
  lenientBoolean,
  optionalText,
  refuse,
  requiredText,
  requireSchema,
} from "./read-json.js";
import type { ScimEmail, ScimGroupAttributes, ScimName, ScimUserAttributes } from "./resources.js";
import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from "./urns.js";

/** The longest `userName`, `displayName`, `externalId` or name part accepted. */
export const SCIM_MAX_TEXT_LENGTH = 1024;
/** The longest address accepted (RFC 5321's limit on a path). */
const MAX_EMAIL_LENGTH = 320;
/** The most addresses a user may have. */
const MAX_EMAILS = 100;

/** A user's attributes as read from a body; `active` is null when the body does not set it. */
export type ScimUserAttributesRead = Omit<ScimUserAttributes, "active"> & { active: boolean | null };

function readName(body: Record<string, unknown>): ScimName | null {
  const value = attributeOf(body, "name");
  if (value === undefined || value === null) return null;
  if (!isJsonObject(value)) return refuse("invalidValue", "name must be an object.");
  const name: ScimName = {
    givenName: optionalText(value, "givenName", SCIM_MAX_TEXT_LENGTH),
    familyName: optionalText(value, "familyName", SCIM_MAX_TEXT_LENGTH),
    formatted: optionalText(value, "formatted", SCIM_MAX_TEXT_LENGTH),
  };
  return name.givenName === null && name.familyName === null && name.formatted === null ? null : name;
}

function readEmail(item: unknown): ScimEmail {
  if (!isJsonObject(item)) return refuse("invalidValue", "Each of emails must be an object.");
  const value = optionalText(item, "value", MAX_EMAIL_LENGTH)?.trim();
  if (!value || !/^[^\s@]+@[^\s@]+$/.test(value)) {
    return refuse("invalidValue", "Each of emails must have an address as value.");
  }
  const type = optionalText(item, "type", SCIM_MAX_TEXT_LENGTH);
  const primary = lenientBoolean(attributeOf(item, "primary"), "emails.primary") ?? false;
  return { value, type: type === null ? null : type.toLowerCase(), primary };
}

function readEmails(body: Record<string, unknown>): ScimEmail[] {
  const value = attributeOf(body, "emails");
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return refuse("invalidValue", "emails must be an array.");
  if (value.length > MAX_EMAILS) return refuse("invalidValue", `A user has at most ${MAX_EMAILS} emails.`);
  const emails = value.map(readEmail);
  if (emails.filter((email) => email.primary).length > 1) {
    return refuse("invalidValue", "At most one of emails may be primary.");
  }
  return emails;
}

/**
 * Reads a user's writable attributes from `body` (a POST or PUT body, or a patched resource),
 * ignoring the read-only ones (`id`, `groups`, `meta`), `password` and attributes the server
 * does not keep (extensions among them). Throws a refusal; `guard` turns it into a result.
 */
export function readUserAttributes(body: unknown, schemaRequired: boolean): ScimUserAttributesRead {
  if (!isJsonObject(body)) return refuse("invalidSyntax", "The body must be a JSON object.");
  if (schemaRequired) requireSchema(body, SCIM_USER_SCHEMA);
  return {
    userName: requiredText(body, "userName", SCIM_MAX_TEXT_LENGTH),
    externalId: optionalText(body, "externalId", SCIM_MAX_TEXT_LENGTH),
    active: lenientBoolean(attributeOf(body, "active"), "active"),
    name: readName(body),
    displayName: optionalText(body, "displayName", SCIM_MAX_TEXT_LENGTH),
    emails: readEmails(body),
  };
}

function readMembers(body: Record<string, unknown>): string[] {
  const value = attributeOf(body, "members");
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return refuse("invalidValue", "members must be an array.");
  const ids = value.map((item) => {
    const id = isJsonObject(item) ? attributeOf(item, "value") : undefined;
    if (typeof id !== "string" || id === "") {
      return refuse("invalidValue", "Each of members must have a user id as value.");
    }
    return id;
  });
  return [...new Set(ids)];
}

/** Reads a group's writable attributes from `body`, as `readUserAttributes` does for a user. */
export function readGroupAttributes(body: unknown, schemaRequired: boolean): ScimGroupAttributes {
  if (!isJsonObject(body)) return refuse("invalidSyntax", "The body must be a JSON object.");
  if (schemaRequired) requireSchema(body, SCIM_GROUP_SCHEMA);
  return {
    displayName: requiredText(body, "displayName", SCIM_MAX_TEXT_LENGTH),
    externalId: optionalText(body, "externalId", SCIM_MAX_TEXT_LENGTH),
    members: readMembers(body),
  };
}

/**
 * Reads the body of `POST /Users`: the attributes to store, `active` true unless the body says
 * otherwise. Refusals: `invalidSyntax` (not an object, `schemas` without the core User schema),
 * `invalidValue` (no `userName`, a value of the wrong type, more than one primary address). The
 * caller checks `userName` is free (else `scimError("uniqueness", …)`), then stores the user
 * with its id, no groups and `created` = `lastModified` = now.
 */
export function readScimUser(body: unknown): ScimResult<ScimUserAttributes> {
  return guard(() => {
    const read = readUserAttributes(body, true);
    return { ...read, active: read.active ?? true };
  });
}

/**
 * Reads the body of `POST /Groups` (`displayName` required, `members` as `[{ value: userId }]`),
 * refused as `readScimUser` refuses. The caller checks that the members exist.
 */
export function readScimGroup(body: unknown): ScimResult<ScimGroupAttributes> {
  return guard(() => readGroupAttributes(body, true));
}
