export {
  ACCESS_TOKEN_ALGORITHMS,
  AccessTokenError,
  type AccessTokenGrant,
  issueAccessToken,
  type VerifiedAccessToken,
  type VerifyAccessTokenOptions,
  verifyAccessToken,
} from "./access-tokens.js";
export { createKeySealer, type KeyMaterial, type KeySealer } from "./sealed-key.js";
export {
  createSigningKeyRing,
  type SigningAlgorithm,
  type SigningKey,
  type SigningKeyRing,
  type SigningKeyRingOptions,
} from "./signing-keys.js";
