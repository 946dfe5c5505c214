/** Attribute and sub-attribute names of the core schemas, as RFC 7643 spells them. */
const NAMES = [
  "schemas",
  "id",
  "externalId",
  "meta",
  "userName",
  "name",
  "displayName",
  "nickName",
  "profileUrl",
  "title",
  "userType",
  "preferredLanguage",
  "locale",
  "timezone",
  "active",
  "password",
  "emails",
  "phoneNumbers",
  "ims",
  "photos",
  "addresses",
  "groups",
  "entitlements",
  "roles",
  "x509Certificates",
  "members",
  "givenName",
  "familyName",
  "middleName",
  "formatted",
  "honorificPrefix",
  "honorificSuffix",
  "value",
  "type",
  "primary",
  "display",
  "$ref",
  "resourceType",
  "created",
  "lastModified",
  "location",
  "version",
];

const BY_LOWER = new Map(NAMES.map((name) => [name.toLowerCase(), name]));

/** The RFC's spelling of a core attribute name given in any case; other names as given. */
export function canonicalAttributeName(name: string): string {
  return BY_LOWER.get(name.toLowerCase()) ?? name;
}

const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(?:user|group):/i;

/**
 * A path without the core schema's URN prefix (`urn:…:core:2.0:User:userName` → `userName`);
 * null for a path into another schema (an extension: Portcullis keeps none).
 */
export function withoutCoreSchema(path: string): string | null {
  const rest = path.trim().replace(CORE_PREFIX, "");
  return /^urn:/i.test(rest) ? null : rest;
}

/** The attributes kept of each resource type (the others are accepted and ignored). */
export const KEPT_ATTRIBUTES = {
  User: new Set([
    "id",
    "externalId",
    "meta",
    "userName",
    "name",
    "displayName",
    "active",
    "emails",
    "groups",
  ]),
  Group: new Set(["id", "externalId", "meta", "displayName", "members"]),
} as const;
