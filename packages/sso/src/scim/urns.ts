/** The media type of SCIM requests and answers (RFC 7644 §3.1); `application/json` is accepted too. */
export const SCIM_CONTENT_TYPE = "application/scim+json";
/** The core User schema (RFC 7643 §4.1). */
export const SCIM_USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
/** The core Group schema (RFC 7643 §4.2). */
export const SCIM_GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
/** The enterprise User extension (RFC 7643 §4.3): accepted in requests, not kept. */
export const SCIM_ENTERPRISE_USER_SCHEMA = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
/** A PATCH request body (RFC 7644 §3.5.2). */
export const SCIM_PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
/** A list answer (RFC 7644 §3.4.2). */
export const SCIM_LIST_RESPONSE_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
/** The service provider's configuration (RFC 7643 §5). */
export const SCIM_SERVICE_PROVIDER_CONFIG_SCHEMA =
  "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
/** A resource type's description (RFC 7643 §6). */
export const SCIM_RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
/** A schema's description (RFC 7643 §7). */
export const SCIM_SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";
