/** The API's own types (the user, the error codes, each input and answer), generated from the core's. */
export type * from "./api-types.js";
export { type AuthClient, type AuthClientOptions, createAuthClient } from "./client.js";
export { type ClientErrorCode, type FieldError, isPortcullisError, PortcullisError } from "./errors.js";
export {
  type CredentialsLike,
  creationOptionsFromJSON,
  credentialToJSON,
  fromBase64url,
  isConditionalPasskeyAvailable,
  type PasskeyCeremonyOptions,
  registerPasskey,
  requestOptionsFromJSON,
  signInWithPasskey,
  stepUpWithPasskey,
  toBase64url,
} from "./passkeys.js";
export type { ChannelLike, LockManagerLike } from "./refresh.js";
export {
  type ActivationResponse,
  type ImpersonationResponse,
  type LoginResponse,
  NAVIGATION_ROUTES,
  type RefreshResponse,
  ROUTE_AUTH,
  type RouteAuthKind,
  type RouteKey,
  type Routes,
  type SignedInResponse,
  type StepUpResponse,
  type TwoFactorRequiredResponse,
} from "./routes.js";
export type { AuthClientEvents, SessionState } from "./session.js";
export { type CallInit, memoryStorage, type StoredTokens, type TokenStorage } from "./transport.js";
export type { TwoFactorFlow, TwoFactorResult, TwoFactorStart, TwoFactorState } from "./two-factor.js";
