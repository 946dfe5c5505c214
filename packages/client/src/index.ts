/** The user as the API answers it (the core's type). */
export type { ErrorCode, User } from "@portcullis/core";
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
