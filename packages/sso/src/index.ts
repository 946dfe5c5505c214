// @portcullis/sso: enterprise sign-in per organization (docs/sso.md).

export { createSso, type SsoOptions } from "./plugin/create-sso.js";
export type {
  SamlAssertion,
  SamlAuthnRequest,
  SamlAuthnRequestInput,
  SamlRefusalReason,
  ValidateSamlResponseInput,
} from "./saml/saml-sp.js";
export { SamlRefusal, samlAuthnRequest, samlSpMetadata, validateSamlResponse } from "./saml/saml-sp.js";
export * from "./scim/index.js";
