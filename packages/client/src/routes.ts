// The HTTP API's routes as the client calls them: each route's body, query and answer, typed from
// api-types.ts, the core's types written out for the client (generated; the published package
// needs nothing of the core), so they cannot drift. `ROUTE_AUTH` is the run-time list of the same
// routes; server.test.ts holds it against the server's route table and types.test.ts holds the
// types against the core's use cases.
import type {
  AccountExport,
  Activation,
  ActivityPage,
  AdminUser,
  AdminUserDetail,
  AuthAnswers,
  ChangePasswordInput,
  CodeInput,
  ConfirmTotpInput,
  CreateApiKeyInput,
  CreateWebhookInput,
  EmailChangeInput,
  EmailInput,
  EmailSignInInput,
  LoginInput,
  PreferredMethodInput,
  RefreshInput,
  RegisterInput,
  RequiredPasswordChangeInput,
  ResetPasswordInput,
  StepUpInput,
  TotpSetup,
  TwoFactorChallenge,
  UpdateWebhookInput,
  User,
} from "./api-types.js";

/** The methods of a 2FA challenge, as the answers of login and step-up show them. */
type ChallengeMethods = Pick<TwoFactorChallenge, "twoFactorMethods" | "preferredTwoFactorMethod">;

/** A completed sign-in (login, 2FA login, recovery): the tokens only with header authentication. */
export interface SignedInResponse extends ChallengeMethods {
  user: User;
  accessToken: string | null;
  refreshToken: string | null;
  twoFactorRequired: false;
  twoFactorAuthenticationToken: null;
  deviceToken: string | null;
  /** Present (true) when the password just used is in the breach corpus (`breachedPasswords`): ask for a new one. */
  passwordBreached?: true;
  emailCodeSent: false;
  emailCodeCooldown: null;
  /** When the new access token expires (ISO 8601): the client refreshes shortly before. */
  accessTokenExpiresAt: string | null;
}

/** A sign-in or step-up that needs a second factor: the 2FA token only with header authentication. */
export interface TwoFactorRequiredResponse extends ChallengeMethods {
  twoFactorRequired: true;
  twoFactorAuthenticationToken: string | null;
  /** True when this step mailed a code now (email preferred); false when none was to be or could be sent. */
  emailCodeSent: boolean;
  /** Seconds until `POST /2fa/email/send` can mail a code (null when no code was to be mailed). */
  emailCodeCooldown: number | null;
}

/** What `POST /login`, `/2fa/login` and `/2fa/recover` answer. */
export type LoginResponse =
  | SignedInResponse
  | (TwoFactorRequiredResponse & {
      user: null;
      accessToken: null;
      refreshToken: null;
      accessTokenExpiresAt: null;
    });

/** What `POST /step-up` and `/2fa/step-up` answer: the step-up token only with header authentication. */
export type StepUpResponse =
  | { stepUpToken: string | null; twoFactorRequired: false }
  | (TwoFactorRequiredResponse & { stepUpToken: null });

/** What `POST /refresh` answers. */
export interface RefreshResponse {
  user: User;
  accessToken: string | null;
  refreshToken: string | null;
  /** When the new access token expires (ISO 8601). */
  accessTokenExpiresAt: string | null;
}

/** One route: its JSON body, its query parameters and its answer. */
interface R<Response, Body = undefined, Query = undefined> {
  body: Body;
  query: Query;
  response: Response;
}

/** What the `Auth` method at `path` resolves to. */
type Answer<Path extends keyof AuthAnswers> = AuthAnswers[Path];
/**
 * The filters of an audit-log page (docs/audit-log.md): an event's name, an actor's id, from and
 * to (ISO 8601 or epoch ms; `to` excluded), the previous page's `nextCursor`. The NDJSON and CSV
 * exports (`format`) are downloads a browser navigates to, not calls of the client.
 */
type AuditLogQuery = {
  type?: string;
  actor?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
};
/** A webhook endpoint's body: its URL and event types (the scope is the path's). */
type WebhookBody = Pick<CreateWebhookInput, "url" | "events">;
/** A webhook endpoint's change: its event types, or on/off. */
type WebhookChange = Pick<UpdateWebhookInput, "events" | "enabled">;
/** A page of an endpoint's deliveries: at most `limit`, older than the delivery `before`. */
type DeliveriesQuery = { limit?: number; before?: string };
type Cooldown = Answer<"requestPasswordReset">;
type Remaining = Answer<"getPasswordResetCooldown">;

/**
 * The webhook routes under `Base`: an organization's (`/organizations/:id/webhooks`) or the
 * deployment's (`/admin/webhooks`), the same calls with the same bodies and answers.
 */
type WebhookRoutes<Base extends string> = Record<`POST ${Base}`, R<Answer<"webhooks.create">, WebhookBody>> &
  Record<`GET ${Base}`, R<Answer<"webhooks.list">>> &
  Record<`PATCH ${Base}/:endpointId`, R<Answer<"webhooks.update">, WebhookChange>> &
  Record<`DELETE ${Base}/:endpointId`, R<Answer<"webhooks.delete">>> &
  Record<`POST ${Base}/:endpointId/rotate-secret`, R<Answer<"webhooks.rotateSecret">>> &
  Record<
    `GET ${Base}/:endpointId/deliveries`,
    R<Answer<"webhooks.listDeliveries">, undefined, DeliveriesQuery>
  > &
  Record<`POST ${Base}/:endpointId/deliveries/:deliveryId/redeliver`, R<Answer<"webhooks.redeliver">>>;

/** Every route of the HTTP API a client calls with `fetch`, by `"METHOD /path"` (relative to the mount). */
export interface Routes
  extends WebhookRoutes<"/organizations/:id/webhooks">,
    WebhookRoutes<"/admin/webhooks"> {
  "POST /register": R<{ success: true }, RegisterInput>;
  "POST /login": R<LoginResponse, LoginInput>;
  "POST /refresh": R<RefreshResponse, RefreshInput>;
  "POST /logout": R<Answer<"logout">>;
  "GET /me": R<Answer<"getCurrentUser">>;
  "GET /sessions": R<{ sessions: Answer<"sessions.list"> }>;
  "DELETE /sessions": R<Answer<"sessions.revokeAll">, undefined, { others?: "true" | "false" }>;
  "DELETE /sessions/:id": R<Answer<"sessions.revoke">>;
  "GET /activity": R<ActivityPage, undefined, { cursor?: string; limit?: number }>;
  "POST /2fa/login": R<LoginResponse, CodeInput>;
  "POST /2fa/recover": R<LoginResponse, CodeInput>;
  "POST /step-up": R<StepUpResponse, StepUpInput>;
  "POST /2fa/step-up": R<StepUpResponse, CodeInput>;
  "GET /2fa/trusted-browsers": R<{ browsers: Answer<"sessions.listTrustedBrowsers"> }>;
  "DELETE /2fa/trusted-browsers": R<Answer<"sessions.forgetTrustedBrowsers">>;
  "DELETE /2fa/trusted-browsers/:id": R<Answer<"sessions.forgetTrustedBrowsers">>;
  "GET /2fa/totp/setup": R<TotpSetup>;
  "POST /2fa/totp/setup": R<Answer<"confirmTotpSetup">, ConfirmTotpInput>;
  "DELETE /2fa/totp": R<Answer<"disableTwoFactorMethod">>;
  "POST /2fa/email/send": R<Answer<"sendTwoFactorEmailCode">>;
  "GET /2fa/email/cooldown": R<Answer<"getTwoFactorEmailCooldown">>;
  "POST /2fa/email/enable": R<Answer<"enableEmailTwoFactor">, CodeInput>;
  "DELETE /2fa/email": R<Answer<"disableTwoFactorMethod">>;
  "POST /2fa/preferred-method": R<Answer<"setPreferredTwoFactorMethod">, PreferredMethodInput>;
  "POST /password/reset-request": R<Cooldown, EmailInput>;
  "GET /password/reset/cooldown": R<Remaining, undefined, { email: string }>;
  "POST /password/reset": R<Answer<"resetPassword">, ResetPasswordInput, { token: string }>;
  "POST /email/verification/send": R<Answer<"resendVerification">>;
  "GET /email/verification/cooldown": R<Answer<"getVerificationCooldown">>;
  "POST /email/verification": R<Answer<"verifyEmail">, undefined, { token: string }>;
  "GET /oauth/providers": R<{ providers: Answer<"identityProviders.list"> }>;
  "POST /oauth/:provider/link": R<{ authorizationUrl: string }, { returnTo?: string }>;
  "DELETE /oauth/:provider": R<Answer<"identityProviders.unlink">>;
  "POST /password/change": R<Answer<"account.changePassword">, ChangePasswordInput>;
  "POST /email/change": R<Answer<"account.requestEmailChange">, EmailChangeInput>;
  "POST /email/change/confirm": R<Answer<"account.confirmEmailChange">, undefined, { token: string }>;
  "DELETE /me": R<Answer<"account.delete">>;
  "GET /me/export": R<AccountExport>;
  "POST /email-sign-in/request": R<Answer<"requestEmailSignIn">, EmailInput>;
  "POST /email-sign-in": R<LoginResponse, EmailSignInInput>;
  "POST /password/change-required": R<LoginResponse, RequiredPasswordChangeInput>;
  "POST /passkeys/register/options": R<Answer<"passkeys.registrationOptions">>;
  "POST /passkeys/register": R<Answer<"passkeys.register">, { response: unknown; name?: string }>;
  "POST /passkeys/login/options": R<Record<string, unknown>, { email?: string } | undefined>;
  "POST /passkeys/login": R<
    LoginResponse,
    { response: unknown; session?: LoginInput["session"]; rememberMe?: boolean }
  >;
  "POST /passkeys/step-up/options": R<Answer<"passkeys.stepUpOptions">>;
  "POST /passkeys/step-up": R<StepUpResponse, { response: unknown }>;
  "GET /passkeys": R<Answer<"passkeys.list">>;
  "PATCH /passkeys/:id": R<Answer<"passkeys.rename">, { name: string }>;
  "DELETE /passkeys/:id": R<Answer<"passkeys.delete">>;
  "GET /admin/users": R<
    Answer<"admin.listUsers">,
    undefined,
    { query?: string; cursor?: string; limit?: number }
  >;
  "GET /admin/users/:id": R<AdminUserDetail>;
  "POST /admin/users/:id/lock": R<AdminUser, { reason?: string }>;
  "POST /admin/users/:id/unlock": R<AdminUser>;
  "DELETE /admin/users/:id/sessions": R<Answer<"admin.revokeSessions">>;
  "POST /admin/users/:id/require-password-change": R<AdminUser>;
  "POST /admin/users/:id/impersonate": R<ImpersonationResponse>;
  "GET /admin/organizations": R<
    Answer<"admin.listOrganizations">,
    undefined,
    { query?: string; cursor?: string; limit?: number }
  >;
  "GET /admin/audit-log": R<
    Answer<"admin.listAuditLog">,
    undefined,
    AuditLogQuery & { organizationId?: string }
  >;
  "GET /admin/audit-log/verify": R<Answer<"admin.verifyAuditLog">, undefined, { organizationId?: string }>;
  "POST /organizations": R<Answer<"organizations.create">, { name: string; slug?: string }>;
  "GET /organizations": R<Answer<"organizations.list">>;
  "GET /organizations/:id": R<Answer<"organizations.get">>;
  "PATCH /organizations/:id": R<Answer<"organizations.update">, { name?: string; slug?: string }>;
  "DELETE /organizations/:id": R<Answer<"organizations.delete">>;
  "POST /organizations/:id/activate": R<ActivationResponse>;
  "GET /organizations/:id/members": R<
    Answer<"organizations.listMembers">,
    undefined,
    { cursor?: string; limit?: number }
  >;
  "PATCH /organizations/:id/members/:userId": R<Answer<"organizations.changeMemberRole">, { role: string }>;
  "DELETE /organizations/:id/members/:userId": R<Answer<"organizations.removeMember">>;
  "POST /organizations/:id/invitations": R<Answer<"organizations.invite">, { email: string; role: string }>;
  "GET /organizations/:id/invitations": R<Answer<"organizations.listInvitations">>;
  "DELETE /organizations/:id/invitations/:invitationId": R<Answer<"organizations.revokeInvitation">>;
  "GET /invitations": R<Answer<"organizations.receivedInvitations">>;
  "POST /invitations/accept": R<Answer<"organizations.acceptInvitation">, { token: string }>;
  "POST /invitations/decline": R<Answer<"organizations.declineInvitation">, { token: string }>;
  "GET /organizations/:id/roles": R<Answer<"organizations.listRoles">>;
  "POST /organizations/:id/roles": R<
    Answer<"organizations.createRole">,
    { name: string; permissions: string[] }
  >;
  "PATCH /organizations/:id/roles/:role": R<Answer<"organizations.updateRole">, { permissions: string[] }>;
  "DELETE /organizations/:id/roles/:role": R<Answer<"organizations.deleteRole">>;
  "GET /organizations/:id/audit-log": R<Answer<"organizations.listAuditLog">, undefined, AuditLogQuery>;
  "POST /api-keys": R<Answer<"apiKeys.create">, CreateApiKeyInput>;
  "GET /api-keys": R<Answer<"apiKeys.list">, undefined, { organizationId?: string }>;
  "DELETE /api-keys/:id": R<Answer<"apiKeys.delete">>;
}

/**
 * What `POST /organizations/:id/activate` answers: a new access token of the same session naming
 * the organization (in the body with header authentication, else in its cookie; the refresh token
 * does not change), as a refresh's answer.
 */
export interface ActivationResponse {
  user: User;
  accessToken: string | null;
  refreshToken: null;
  /** When the new access token expires (ISO 8601). */
  accessTokenExpiresAt: string | null;
  activeOrganization: Activation["activeOrganization"];
}

/**
 * What `POST /admin/users/:id/impersonate` answers: the tokens with header authentication; null
 * with cookie authentication, where the answer sets the browser's session cookies instead.
 */
export interface ImpersonationResponse {
  user: User;
  accessToken: string | null;
  refreshToken: string | null;
  /** ISO 8601: when the impersonation ends (an hour after it started). */
  expiresAt: string;
}

export type RouteKey = keyof Routes;

/**
 * What each route needs from the caller (the server's `auth` of the route): `access` and the kinds
 * that include it are retried once after a refresh when the access token is refused.
 */
export type RouteAuthKind =
  | "none"
  | "sign-out"
  | "access"
  | "step-up"
  | "two-factor"
  | "access-and-two-factor"
  | "access-or-two-factor"
  | "refresh"
  /** The back office: the access token, and the step-up token the client holds (the server asks for it after `admin.authorize`). */
  | "admin";

export const ROUTE_AUTH: { readonly [K in RouteKey]: RouteAuthKind } = {
  "POST /register": "none",
  "POST /login": "none",
  "POST /refresh": "refresh",
  "POST /logout": "sign-out",
  "GET /me": "access",
  "GET /sessions": "access",
  "DELETE /sessions": "access",
  "DELETE /sessions/:id": "access",
  "GET /activity": "access",
  "POST /2fa/login": "two-factor",
  "POST /2fa/recover": "two-factor",
  "POST /step-up": "access",
  "POST /2fa/step-up": "access-and-two-factor",
  "GET /2fa/trusted-browsers": "access",
  "DELETE /2fa/trusted-browsers": "access",
  "DELETE /2fa/trusted-browsers/:id": "access",
  "GET /2fa/totp/setup": "step-up",
  "POST /2fa/totp/setup": "step-up",
  "DELETE /2fa/totp": "step-up",
  "POST /2fa/email/send": "access-or-two-factor",
  "GET /2fa/email/cooldown": "access-or-two-factor",
  "POST /2fa/email/enable": "step-up",
  "DELETE /2fa/email": "step-up",
  "POST /2fa/preferred-method": "step-up",
  "POST /password/reset-request": "none",
  "GET /password/reset/cooldown": "none",
  "POST /password/reset": "none",
  "POST /email/verification/send": "access",
  "GET /email/verification/cooldown": "access",
  "POST /email/verification": "none",
  "GET /oauth/providers": "none",
  "POST /oauth/:provider/link": "step-up",
  "DELETE /oauth/:provider": "step-up",
  "POST /password/change": "access",
  "POST /email/change": "step-up",
  "POST /email/change/confirm": "none",
  "DELETE /me": "step-up",
  "GET /me/export": "step-up",
  "POST /email-sign-in/request": "none",
  "POST /email-sign-in": "none",
  "POST /password/change-required": "none",
  "POST /passkeys/register/options": "step-up",
  "POST /passkeys/register": "step-up",
  "POST /passkeys/login/options": "none",
  "POST /passkeys/login": "none",
  "POST /passkeys/step-up/options": "access",
  "POST /passkeys/step-up": "access",
  "GET /passkeys": "access",
  "PATCH /passkeys/:id": "step-up",
  "DELETE /passkeys/:id": "step-up",
  "GET /admin/users": "admin",
  "GET /admin/users/:id": "admin",
  "POST /admin/users/:id/lock": "admin",
  "POST /admin/users/:id/unlock": "admin",
  "DELETE /admin/users/:id/sessions": "admin",
  "POST /admin/users/:id/require-password-change": "admin",
  "POST /admin/users/:id/impersonate": "admin",
  "GET /admin/organizations": "admin",
  "GET /admin/audit-log": "admin",
  "GET /admin/audit-log/verify": "admin",
  "POST /organizations": "access",
  "GET /organizations": "access",
  "GET /organizations/:id": "access",
  "PATCH /organizations/:id": "access",
  "DELETE /organizations/:id": "step-up",
  "POST /organizations/:id/activate": "access",
  "GET /organizations/:id/members": "access",
  "PATCH /organizations/:id/members/:userId": "access",
  "DELETE /organizations/:id/members/:userId": "access",
  "POST /organizations/:id/invitations": "access",
  "GET /organizations/:id/invitations": "access",
  "DELETE /organizations/:id/invitations/:invitationId": "access",
  "GET /invitations": "access",
  "POST /invitations/accept": "access",
  "POST /invitations/decline": "access",
  "GET /organizations/:id/roles": "access",
  "POST /organizations/:id/roles": "access",
  "PATCH /organizations/:id/roles/:role": "access",
  "DELETE /organizations/:id/roles/:role": "access",
  "GET /organizations/:id/audit-log": "access",
  "POST /api-keys": "step-up",
  "GET /api-keys": "access",
  "DELETE /api-keys/:id": "access",
  "POST /organizations/:id/webhooks": "step-up",
  "GET /organizations/:id/webhooks": "access",
  "PATCH /organizations/:id/webhooks/:endpointId": "access",
  "DELETE /organizations/:id/webhooks/:endpointId": "access",
  "POST /organizations/:id/webhooks/:endpointId/rotate-secret": "step-up",
  "GET /organizations/:id/webhooks/:endpointId/deliveries": "access",
  "POST /organizations/:id/webhooks/:endpointId/deliveries/:deliveryId/redeliver": "access",
  "POST /admin/webhooks": "admin",
  "GET /admin/webhooks": "admin",
  "PATCH /admin/webhooks/:endpointId": "admin",
  "DELETE /admin/webhooks/:endpointId": "admin",
  "POST /admin/webhooks/:endpointId/rotate-secret": "admin",
  "GET /admin/webhooks/:endpointId/deliveries": "admin",
  "POST /admin/webhooks/:endpointId/deliveries/:deliveryId/redeliver": "admin",
};

/**
 * The routes a browser navigates to rather than fetches (they answer with redirects), and the
 * OpenAPI document: `authorizeUrl` builds the first; the client does not call the others.
 */
export const NAVIGATION_ROUTES = [
  "GET /oauth/:provider/authorize",
  "GET /oauth/:provider/callback",
  "GET /openapi.json",
] as const;
