// SCIM 2.0 (RFC 7643/7644) without HTTP or storage: resources, PATCH, filters, paging, discovery.
export {
  diffScimGroup,
  diffScimUser,
  replaceScimGroup,
  replaceScimUser,
  type ScimGroupChanges,
  type ScimGroupField,
  type ScimUserChanges,
  type ScimUserField,
  type ScimWrite,
  type ScimWriteOptions,
} from "./changes.js";
export * from "./discovery.js";
export * from "./errors.js";
export * from "./filter.js";
export * from "./paging.js";
export * from "./patch.js";
export { readScimGroup, readScimUser, SCIM_MAX_TEXT_LENGTH } from "./read-resources.js";
export {
  type ScimEmail,
  type ScimGroup,
  type ScimGroupAttributes,
  type ScimGroupJson,
  type ScimJsonOptions,
  type ScimMetaJson,
  type ScimName,
  type ScimUser,
  type ScimUserAttributes,
  type ScimUserJson,
  scimLocation,
  toScimGroupJson,
  toScimUserJson,
} from "./resources.js";
export * from "./urns.js";
