export {
  ACCESS_TOKEN_ALGORITHMS,
  AccessTokenError,
  type AccessTokenGrant,
  issueAccessToken,
  type VerifiedAccessToken,
  type VerifyAccessTokenOptions,
  verifyAccessToken,
} from "./access-tokens.js";
export {
  CLIENT_GRANT_TYPES,
  type ClientCredentials,
  type ClientRegistry,
  type ClientRegistryOptions,
  clientCredentialsOf,
  createClientRegistry,
  DEVICE_CODE_GRANT,
  type OAuthClientInput,
  parseClientInput,
} from "./clients.js";
export {
  type ProtectedResourceMetadataOptions,
  type ProviderMetadataOptions,
  protectedResourceMetadata,
  providerMetadata,
  STANDARD_SCOPES,
} from "./discovery.js";
export {
  accessTokenHash,
  type ClaimsUser,
  type IdTokenContent,
  issueIdToken,
  userClaims,
} from "./id-tokens.js";
export { OAuthError, type OAuthErrorCode } from "./oauth-error.js";
export { isCodeChallenge, isCodeVerifier, verifyCodeVerifier } from "./pkce.js";
export { createOAuthProvider, endsGrants, type OAuthProviderOptions } from "./provider.js";
export { createKeySealer, type KeyMaterial, type KeySealer } from "./sealed-key.js";
export {
  createSigningKeyRing,
  type SigningAlgorithm,
  type SigningKey,
  type SigningKeyRing,
  type SigningKeyRingOptions,
} from "./signing-keys.js";
