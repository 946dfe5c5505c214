import { SCIM_DEFAULT_MAX_RESULTS, type ScimListResponse, scimListResponse } from "./paging.js";
import { scimBase } from "./resources.js";
import {
  SCIM_GROUP_SCHEMA,
  SCIM_RESOURCE_TYPE_SCHEMA,
  SCIM_SCHEMA_SCHEMA,
  SCIM_SERVICE_PROVIDER_CONFIG_SCHEMA,
  SCIM_USER_SCHEMA,
} from "./urns.js";

/** An attribute's description in a schema (RFC 7643 §7). */
export interface ScimAttributeDefinition {
  name: string;
  type: "string" | "boolean" | "complex" | "reference" | "dateTime";
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned: "always" | "never" | "default" | "request";
  uniqueness: "none" | "server" | "global";
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttributeDefinition[];
}

/** A discovery document's `meta`. */
export interface ScimDiscoveryMeta {
  resourceType: "ServiceProviderConfig" | "Schema" | "ResourceType";
  location: string;
}

/** A schema's description (RFC 7643 §7). */
export interface ScimSchemaDocument {
  schemas: [typeof SCIM_SCHEMA_SCHEMA];
  id: string;
  name: string;
  description: string;
  attributes: ScimAttributeDefinition[];
  meta: ScimDiscoveryMeta;
}

/** A resource type's description (RFC 7643 §6). */
export interface ScimResourceTypeDocument {
  schemas: [typeof SCIM_RESOURCE_TYPE_SCHEMA];
  id: "User" | "Group";
  name: "User" | "Group";
  endpoint: "/Users" | "/Groups";
  description: string;
  schema: string;
  meta: ScimDiscoveryMeta;
}

function attribute(
  name: string,
  type: ScimAttributeDefinition["type"],
  description: string,
  more: Partial<ScimAttributeDefinition> = {},
): ScimAttributeDefinition {
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...more,
  };
}

const USER_ATTRIBUTES: ScimAttributeDefinition[] = [
  attribute("userName", "string", "Unique identifier of the user, typically an email address.", {
    required: true,
    uniqueness: "server",
  }),
  attribute("name", "complex", "The components of the user's name.", {
    subAttributes: [
      attribute("formatted", "string", "The full name."),
      attribute("familyName", "string", "The family name."),
      attribute("givenName", "string", "The given name."),
    ],
  }),
  attribute("displayName", "string", "The name of the user, suitable for display."),
  attribute("active", "boolean", "Whether the user may sign in; false ends its sessions and keys."),
  attribute("emails", "complex", "Email addresses of the user.", {
    multiValued: true,
    subAttributes: [
      attribute("value", "string", "An email address."),
      attribute("type", "string", "The address's kind.", { canonicalValues: ["work", "home", "other"] }),
      attribute("primary", "boolean", "Whether this is the primary address (at most one)."),
    ],
  }),
  attribute("groups", "complex", "The groups the user belongs to (changed through Groups).", {
    multiValued: true,
    mutability: "readOnly",
    subAttributes: [
      attribute("value", "string", "The group's id.", { mutability: "readOnly", caseExact: true }),
      attribute("$ref", "reference", "The group's URI.", {
        mutability: "readOnly",
        referenceTypes: ["Group"],
      }),
      attribute("display", "string", "The group's name.", { mutability: "readOnly" }),
    ],
  }),
];

const GROUP_ATTRIBUTES: ScimAttributeDefinition[] = [
  attribute("displayName", "string", "The group's name, a role in the organization.", {
    required: true,
    uniqueness: "server",
  }),
  attribute("members", "complex", "The users in the group.", {
    multiValued: true,
    subAttributes: [
      attribute("value", "string", "The user's id.", { mutability: "immutable", caseExact: true }),
      attribute("$ref", "reference", "The user's URI.", {
        mutability: "immutable",
        referenceTypes: ["User"],
      }),
      attribute("type", "string", "The member's kind.", {
        mutability: "immutable",
        canonicalValues: ["User"],
      }),
      attribute("display", "string", "The user's name.", { mutability: "readOnly" }),
    ],
  }),
];

/** Options of the `ServiceProviderConfig` document. */
export interface ScimServiceProviderConfigOptions {
  /** The most resources a list answers (`filter.maxResults`); default 100. */
  maxResults?: number;
  /** A page documenting the service, if any. */
  documentationUri?: string;
}

/**
 * `GET /ServiceProviderConfig` (RFC 7643 §5): PATCH and filters supported (`maxResults`), bulk,
 * password changes, sorting and ETags not; authentication by a bearer token.
 */
export function scimServiceProviderConfig(baseUrl: string, options: ScimServiceProviderConfigOptions = {}) {
  return {
    schemas: [SCIM_SERVICE_PROVIDER_CONFIG_SCHEMA],
    ...(options.documentationUri === undefined ? {} : { documentationUri: options.documentationUri }),
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: options.maxResults ?? SCIM_DEFAULT_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "The connection's SCIM token, sent as `Authorization: Bearer <token>`.",
        specUri: "https://www.rfc-editor.org/info/rfc6750",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${scimBase(baseUrl)}/ServiceProviderConfig` },
  };
}

function schemaDocument(
  baseUrl: string,
  id: string,
  name: string,
  description: string,
  attributes: ScimAttributeDefinition[],
): ScimSchemaDocument {
  const location = `${scimBase(baseUrl)}/Schemas/${id}`;
  return {
    schemas: [SCIM_SCHEMA_SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: "Schema", location },
  };
}

/** The descriptions of the User and Group schemas, as the `Resources` of `GET /Schemas`. */
export function scimSchemaDocuments(baseUrl: string): ScimSchemaDocument[] {
  return [
    schemaDocument(baseUrl, SCIM_USER_SCHEMA, "User", "User Account", USER_ATTRIBUTES),
    schemaDocument(
      baseUrl,
      SCIM_GROUP_SCHEMA,
      "Group",
      "Group (a role in the organization)",
      GROUP_ATTRIBUTES,
    ),
  ];
}

/** The descriptions of the User and Group resource types, as the `Resources` of `GET /ResourceTypes`. */
export function scimResourceTypeDocuments(baseUrl: string): ScimResourceTypeDocument[] {
  const base = scimBase(baseUrl);
  const document = (id: "User" | "Group", description: string, schema: string): ScimResourceTypeDocument => ({
    schemas: [SCIM_RESOURCE_TYPE_SCHEMA],
    id,
    name: id,
    endpoint: id === "User" ? "/Users" : "/Groups",
    description,
    schema,
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/${id}` },
  });
  return [document("User", "User Account", SCIM_USER_SCHEMA), document("Group", "Group", SCIM_GROUP_SCHEMA)];
}

/** `GET /Schemas`: a list answer of both schemas. */
export function scimSchemas(baseUrl: string): ScimListResponse<ScimSchemaDocument> {
  const documents = scimSchemaDocuments(baseUrl);
  return scimListResponse(documents, documents.length, 1);
}

/** `GET /ResourceTypes`: a list answer of both resource types. */
export function scimResourceTypes(baseUrl: string): ScimListResponse<ScimResourceTypeDocument> {
  const documents = scimResourceTypeDocuments(baseUrl);
  return scimListResponse(documents, documents.length, 1);
}

/** `GET /Schemas/:id`: the schema with this URN (compared without case), or null (answer 404). */
export function scimSchemaById(baseUrl: string, id: string): ScimSchemaDocument | null {
  return (
    scimSchemaDocuments(baseUrl).find((document) => document.id.toLowerCase() === id.toLowerCase()) ?? null
  );
}

/** `GET /ResourceTypes/:id`: "User" or "Group" (compared without case), or null (answer 404). */
export function scimResourceTypeById(baseUrl: string, id: string): ScimResourceTypeDocument | null {
  return (
    scimResourceTypeDocuments(baseUrl).find((document) => document.id.toLowerCase() === id.toLowerCase()) ??
    null
  );
}
